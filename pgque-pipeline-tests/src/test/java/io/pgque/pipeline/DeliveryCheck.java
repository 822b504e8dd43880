/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The promises about what comes out of the pipe, checked per key against what went in. */
final class DeliveryCheck {

    private DeliveryCheck() {
    }

    /**
     * At least once: every event of every key arrived; a key's sequence never jumps ahead
     * (each value is at most one more than the one before it), so new events come in input order
     * and a duplicate only starts a replay of a suffix already delivered, which walks forward
     * again. Replays after replays (the sink's, then the source's) keep that shape.
     *
     * @return the number of duplicates
     */
    static long atLeastOnce(Map<String, List<Integer>> byKey, int keys, int perKey) {
        assertEquals(keys, byKey.size(), "every key arrived");
        long duplicates = 0;
        for (Map.Entry<String, List<Integer>> entry : byKey.entrySet()) {
            List<Integer> seqs = entry.getValue();
            int next = 0;
            for (int i = 0; i < seqs.size(); i++) {
                int seq = seqs.get(i);
                int previous = i == 0 ? -1 : seqs.get(i - 1);
                if (seq > previous + 1) {
                    throw new AssertionError("key " + entry.getKey() + ": " + seq + " follows " + previous
                            + " at position " + i + ", skipping ahead: " + seqs);
                }
                if (seq == next) {
                    next++;
                } else {
                    duplicates++;
                }
            }
            assertEquals(perKey, next, "key " + entry.getKey() + " complete: " + seqs);
        }
        return duplicates;
    }

    /** Exactly once: each key's events, each once, in input order. */
    static void exactlyOnce(Map<String, List<Integer>> byKey, int keys, int perKey) {
        assertEquals(keys, byKey.size(), "every key arrived");
        List<Integer> expected = java.util.stream.IntStream.range(0, perKey).boxed().toList();
        for (Map.Entry<String, List<Integer>> entry : byKey.entrySet()) {
            assertEquals(expected, entry.getValue(), "key " + entry.getKey());
        }
    }
}

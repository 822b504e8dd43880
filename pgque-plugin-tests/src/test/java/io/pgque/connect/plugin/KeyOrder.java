/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What at-least-once delivery in per-key order allows a consumer to see. */
final class KeyOrder {

    private KeyOrder() {
    }

    /**
     * Each key of {@code sent} complete (sequence numbers 0 to its count minus one) in
     * {@code received}, its first deliveries in order: a replay may repeat what came before,
     * never skip ahead.
     *
     * @param received per key, the sequence numbers in the order they arrived
     * @param sent     per key, how many were sent
     */
    static void assertFirstDeliveriesInOrder(Map<String, ? extends List<Integer>> received, Map<String, Integer> sent) {
        sent.forEach((key, count) -> {
            List<Integer> sequences = received.containsKey(key) ? received.get(key) : List.of();
            int next = 0;
            for (int seq : sequences) {
                int expected = next;
                assertTrue(seq <= expected, () -> "key " + key + ": " + seq + " arrived before " + expected + " " + sequences);
                if (seq == next) {
                    next++;
                }
            }
            assertEquals(count.intValue(), next, "key " + key + " complete: " + sequences);
        });
    }
}

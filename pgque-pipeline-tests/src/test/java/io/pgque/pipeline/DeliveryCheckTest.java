/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The suite's verdicts themselves: a replayed suffix passes, anything that reorders or loses fails. */
class DeliveryCheckTest {

    @Test
    void atLeastOnceAcceptsReplayedSuffixesAndCountsThem() {
        Map<String, List<Integer>> byKey = Map.of(
                "a", List.of(0, 1, 2, 3, 2, 3, 4),        // a replay of 2..3
                "b", List.of(0, 1, 0, 1, 2, 3, 4, 3, 4));  // replays after replays
        assertEquals(6, DeliveryCheck.atLeastOnce(byKey, 2, 5), "2 + 4 events seen again");
    }

    @Test
    void atLeastOnceRefusesASkipAheadALossAndAStrayOldEvent() {
        assertThrows(AssertionError.class, () -> DeliveryCheck.atLeastOnce(Map.of("a", List.of(0, 2, 1, 3, 4)), 1, 5));
        assertThrows(AssertionError.class, () -> DeliveryCheck.atLeastOnce(Map.of("a", List.of(0, 1, 2, 3)), 1, 5));
        // 1 again after 3, then 4: not a replay that walks forward from 1.
        assertThrows(AssertionError.class, () -> DeliveryCheck.atLeastOnce(Map.of("a", List.of(0, 1, 2, 3, 1, 4)), 1, 5));
        assertThrows(AssertionError.class, () -> DeliveryCheck.atLeastOnce(Map.of("a", List.of(0, 1)), 2, 2));
    }

    @Test
    void exactlyOnceRefusesAnyDuplicate() {
        DeliveryCheck.exactlyOnce(Map.of("a", List.of(0, 1, 2)), 1, 3);
        assertThrows(AssertionError.class, () -> DeliveryCheck.exactlyOnce(Map.of("a", List.of(0, 1, 1, 2)), 1, 3));
    }
}

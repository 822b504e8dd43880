/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ticker;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TickCadenceTest {

    private static final long MS = 1_000_000L;

    @Test
    void roundsKeepAFixedRateFromEachStartWhateverTheyTake() {
        TickCadence cadence = new TickCadence(Duration.ofMillis(50));
        assertEquals(48 * MS, cadence.delayNanos(1_000 * MS, 1_002 * MS), "a round of 2 ms: the next 50 ms after its start");
        assertEquals(0, cadence.delayNanos(1_000 * MS, 1_050 * MS), "a round of exactly the interval: the next at once");
    }

    @Test
    void aRoundLongerThanTheIntervalIsFollowedAtOnceAndOnlyOnce() {
        TickCadence cadence = new TickCadence(Duration.ofMillis(50));
        assertEquals(0, cadence.delayNanos(1_000 * MS, 1_400 * MS), "the next at once");
        // The next round starts at 1,400 ms: its own start is what the one after it counts from,
        // not the eight rounds the slow one missed.
        assertEquals(50 * MS, cadence.delayNanos(1_400 * MS, 1_400 * MS));
    }

    @Test
    void roundsAskForAPeriodAQuarterShorterThanTheInterval() {
        assertEquals(Duration.ofMillis(75), new TickCadence(Duration.ofMillis(100)).period());
        assertEquals(Duration.ofNanos(37_500_000), new TickCadence(Duration.ofMillis(50)).period());
    }

    @Test
    void theIntervalMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new TickCadence(Duration.ZERO));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PollLoopTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void dueNowWaitsAMillisecondWhateverTheClockReads() {
        for (long now : new long[] {-5_000_000_000L, 0, 5_000_000_000L, Long.MAX_VALUE - 1_000_000_000L}) {
            assertEquals(MS, PollLoop.waitNanos(Long.MIN_VALUE, now + 100 * MS, now), "now = " + now);
        }
    }

    @Test
    void waitsUntilTheEarlierOfDueAndTheEndOfThePollInterval() {
        long now = 7_000_000_000L;
        assertEquals(20 * MS, PollLoop.waitNanos(now + 20 * MS, now + 100 * MS, now));
        assertEquals(100 * MS, PollLoop.waitNanos(now + 300 * MS, now + 100 * MS, now));
        assertEquals(100 * MS, PollLoop.waitNanos(Long.MAX_VALUE, now + 100 * MS, now));
        assertEquals(MS, PollLoop.waitNanos(now - 5 * MS, now + 100 * MS, now), "overdue: at once, no busy loop");
    }
}

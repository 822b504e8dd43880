/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class LatenciesTest {

    @Test
    void nearestRankOnOneToHundred() {
        Latencies l = new Latencies();
        // added in reverse, so the percentile cannot rely on insertion order
        for (long v = 100; v >= 1; v--) {
            l.add(v);
        }
        assertEquals(OptionalLong.of(50), l.percentile(50));
        assertEquals(OptionalLong.of(99), l.percentile(99));
        assertEquals(OptionalLong.of(100), l.percentile(100));
        assertEquals(OptionalLong.of(1), l.percentile(0.5));
    }

    @Test
    void smallSamplesRoundTheRankUp() {
        Latencies l = new Latencies();
        l.add(10);
        l.add(20);
        l.add(30);
        // p50 of three values: rank ceil(1.5) = 2
        assertEquals(OptionalLong.of(20), l.percentile(50));
        // p99: rank ceil(2.97) = 3, the largest
        assertEquals(OptionalLong.of(30), l.percentile(99));
    }

    @Test
    void oneValueIsEveryPercentile() {
        Latencies l = new Latencies();
        l.add(7);
        assertEquals(OptionalLong.of(7), l.percentile(1));
        assertEquals(OptionalLong.of(7), l.percentile(99));
    }

    @Test
    void growsPastItsFirstArray() {
        Latencies l = new Latencies();
        for (int i = 0; i < 5000; i++) {
            l.add(i);
        }
        assertEquals(5000, l.count());
        assertEquals(OptionalLong.of(4949), l.percentile(99));
    }

    @Test
    void nothingRecordedIsEmptyAndBadPercentilesAreRefused() {
        assertEquals(OptionalLong.empty(), new Latencies().percentile(50));
        assertThrows(IllegalArgumentException.class, () -> new Latencies().percentile(0));
        assertThrows(IllegalArgumentException.class, () -> new Latencies().percentile(101));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

import java.util.Arrays;
import java.util.OptionalLong;

/** End-to-end latencies in microseconds, kept whole so percentiles are exact, not bucketed. */
public final class Latencies {

    private long[] values = new long[1024];
    private int size;

    public void add(long micros) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = micros;
    }

    public int count() {
        return size;
    }

    /**
     * The {@code p}-th percentile by the nearest-rank method: the smallest value such that at
     * least {@code p}% of all values are at or below it. Empty when nothing was recorded.
     */
    public OptionalLong percentile(double p) {
        if (p <= 0 || p > 100) {
            throw new IllegalArgumentException("percentile must be in (0, 100], got " + p);
        }
        if (size == 0) {
            return OptionalLong.empty();
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return OptionalLong.of(sorted[Math.max(rank, 1) - 1]);
    }
}

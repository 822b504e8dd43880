/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** First and last broker append time of a topic's records, and how many there were. */
record AppendSpan(long count, long firstAppendMs, long lastAppendMs) {
    double seconds() {
        // Millisecond timestamps: never report a zero-length run.
        return Math.max(lastAppendMs - firstAppendMs, 1) / 1000.0;
    }

    double rate() {
        return count / seconds();
    }

    static AppendSpan median(List<AppendSpan> runs) {
        List<AppendSpan> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(AppendSpan::rate));
        return sorted.get(sorted.size() / 2);
    }
}

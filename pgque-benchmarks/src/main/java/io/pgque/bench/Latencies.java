/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Latency percentiles of one run, printed beside a baseline run; and of the part of it after
 * the broker appended each record (to the consumer's having it), to tell the source's share of
 * a tail from Kafka's.
 */
final class Latencies {
    private final double[] sorted;
    private final double[] afterAppend;
    private final long sent;

    /** @param sent events the producer sent in all, the measured ones and those it went on with */
    Latencies(double[] millis, double[] afterAppendMillis, long sent) {
        this.sent = sent;
        this.sorted = millis.clone();
        Arrays.sort(sorted);
        this.afterAppend = afterAppendMillis.clone();
        Arrays.sort(afterAppend);
    }

    long sent() {
        return sent;
    }

    double percentile(double p) {
        return percentile(sorted, p);
    }

    private static double percentile(double[] sorted, double p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(index, sorted.length - 1))];
    }

    /** The part after the broker's append: its p50 and p99, in ms (whole ms: the append time is a wall-clock ms). */
    String afterAppend() {
        return String.format(Locale.ROOT, "p50 %.0f ms, p99 %.0f ms, max %.0f ms", percentile(afterAppend, 50),
                percentile(afterAppend, 99), afterAppend[afterAppend.length - 1]);
    }

    /** The median over {@code runs} of their p50, p99 and max, as text. */
    static String medians(List<Latencies> runs) {
        return String.format(Locale.ROOT, "p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d rounds; p50 by round %s)",
                median(runs.stream().mapToDouble(run -> run.percentile(50)).toArray()),
                median(runs.stream().mapToDouble(run -> run.percentile(99)).toArray()),
                median(runs.stream().mapToDouble(run -> run.sorted[run.sorted.length - 1]).toArray()), runs.size(),
                runs.stream().map(run -> String.format(Locale.ROOT, "%.1f / %.1f", run.percentile(50),
                        run.percentile(99))).toList());
    }

    /** The median of {@code values} (the mean of the middle two for an even count). */
    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    static void printHeader() {
        System.out.printf(Locale.ROOT, "| %-62s | %7s | %8s | %8s | %8s | %11s |%n", "what", "events", "p50 ms",
                "p99 ms", "max ms", "p99 ratio");
        System.out.println("|" + "-".repeat(64) + "|" + "-".repeat(9) + "|" + "-".repeat(10) + "|"
                + "-".repeat(10) + "|" + "-".repeat(10) + "|" + "-".repeat(13) + "|");
    }

    void printRow(String what, Latencies baseline) {
        String ratio = baseline == null ? "-"
                : String.format(Locale.ROOT, "%.2f", percentile(99) / baseline.percentile(99));
        System.out.printf(Locale.ROOT, "| %-62s | %7d | %8.1f | %8.1f | %8.1f | %11s |%n", what, sorted.length,
                percentile(50), percentile(99), sorted[sorted.length - 1], ratio);
    }
}

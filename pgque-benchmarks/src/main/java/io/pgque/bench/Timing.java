/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.util.Locale;

/** Small helpers for measuring and printing a figure beside its baseline. */
final class Timing {

    private Timing() {
    }

    interface Body {
        void run() throws Exception;
    }

    /** Runs the body and returns elapsed seconds. */
    static double seconds(Body body) throws Exception {
        long start = System.nanoTime();
        body.run();
        return (System.nanoTime() - start) / 1e9;
    }

    static void printRow(String what, long events, double seconds, double baselinePerSecond) {
        double perSecond = events / seconds;
        String ratio = baselinePerSecond > 0 ? String.format(Locale.ROOT, "%.2f", perSecond / baselinePerSecond) : "-";
        System.out.printf(Locale.ROOT, "| %-58s | %9d | %8.3f | %12.0f | %6s |%n", what, events, seconds, perSecond, ratio);
    }

    static void printHeader(String title) {
        System.out.println();
        System.out.println("### " + title);
        System.out.println();
        System.out.printf(Locale.ROOT, "| %-58s | %9s | %8s | %12s | %6s |%n", "what", "events", "seconds", "events/s",
                "ratio");
        System.out.println("|" + "-".repeat(60) + "|" + "-".repeat(11) + "|" + "-".repeat(10) + "|" + "-".repeat(14)
                + "|" + "-".repeat(8) + "|");
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The suite's own output, on the console: each fault as it is injected and once the pipe has
 * recovered, with how far the stream was at that moment, then what was counted at the end.
 */
final class PipelineReport {

    private final String mode;
    private final long started = System.nanoTime();
    private final LongSupplier produced;
    private final LongSupplier inQueue;
    private final LongSupplier inOutput;

    /**
     * @param produced input records acknowledged by Kafka
     * @param inQueue  events in the queue
     * @param inOutput records in the output topic (end offsets, so a progress figure only)
     */
    PipelineReport(String mode, LongSupplier produced, LongSupplier inQueue, LongSupplier inOutput) {
        this.mode = mode;
        this.produced = produced;
        this.inQueue = inQueue;
        this.inOutput = inOutput;
    }

    void injected(String fault) {
        line("injected  " + fault + progress());
    }

    void settled(String fault) {
        line("recovered " + fault + progress());
    }

    void counted(String what) {
        line("counted   " + what);
    }

    void line(String text) {
        System.out.printf(Locale.ROOT, "[pipeline %s] %6.1f s  %s%n", mode, (System.nanoTime() - started) / 1e9, text);
        System.out.flush();
    }

    private String progress() {
        return "  (input " + produced.getAsLong() + ", queue " + safely(inQueue) + ", output " + safely(inOutput) + ")";
    }

    // A progress figure must never fail the run, e.g. while PostgreSQL is down.
    private static String safely(LongSupplier figure) {
        try {
            return Long.toString(figure.getAsLong());
        } catch (RuntimeException e) {
            return "?";
        }
    }
}

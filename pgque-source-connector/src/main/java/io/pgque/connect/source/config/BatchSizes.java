/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

/**
 * The chunk size and catch-up window the tasks read with when the connector's settings leave
 * them to it ({@code pgque.batch.max.events}, {@code pgque.batch.catchup.max.events}).
 *
 * <p>Each batch costs the same acks, opens and round trips whatever its size, so a slot draining
 * a backlog goes faster with large chunks and windows (docs/benchmarks.md, the drain). But every
 * slot holds up to five chunks of records (two streaming, three read ahead), and with several
 * slots the larger sizes made the JVM's collector work harder and the drain slower.
 * So the connector's slots share one budget: {@value #BUDGET} events a chunk divided among its
 * N slots, never fewer than {@value #MIN_CHUNK} each.
 *
 * <p>A window of two and a half chunks is read ahead in one query (up to three chunks); a larger
 * one is read through a cursor, which costs the server about twice as much.
 */
public final class BatchSizes {

    /** Events of one chunk, shared among the consumer's slots. */
    public static final int BUDGET = 4_000;
    /** The smallest derived chunk, and a cooperative worker's. */
    public static final int MIN_CHUNK = 1_000;

    private BatchSizes() {
    }

    /** The chunk size of each slot of a consumer with {@code slots} slots: {@code configured} when set. */
    public static int chunk(Integer configured, int slots) {
        if (configured != null) {
            return configured;
        }
        return Math.max(MIN_CHUNK, BUDGET / Math.max(1, slots));
    }

    /** The catch-up window, in events of a slot, for chunks of {@code chunk}: {@code configured} when set. */
    public static long window(Long configured, int chunk) {
        return configured != null ? configured : chunk * 5L / 2;
    }
}

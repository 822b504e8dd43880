/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.report;

/**
 * The end-to-end latency split at the queue, in microseconds: from the send to the sink's write
 * into PostgreSQL (the event's {@code ev_time}: input topic, sink, the write's transaction), from
 * there to the first tick that made the event readable, and from that tick to the read on the
 * output topic (the slot's wake-up and read, the source task, the output topic). Percentiles of
 * each part are taken separately, so they do not add up to the end-to-end ones.
 */
public record Stages(Part intoQueue, Part waitForTick, Part tickToOutput) {

    /** The p50 and p99 of one part, in microseconds; -1 when no event had that part measured. */
    public record Part(long p50Micros, long p99Micros) {
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.report;

/**
 * The end-to-end latency split at the queue, in microseconds: from the send to the sink's write
 * into PostgreSQL (the event's {@code ev_time}: input topic, sink, the write's transaction), and
 * from there to the read on the output topic (waiting for a tick, the slot's read, the source,
 * the output topic). Percentiles of each part are taken separately, so they do not add up to the
 * end-to-end ones.
 */
public record Stages(long intoQueueP50Micros, long intoQueueP99Micros, long outOfQueueP50Micros,
                     long outOfQueueP99Micros) {
}

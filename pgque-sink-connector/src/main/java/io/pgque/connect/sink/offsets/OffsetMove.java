/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.offsets;

import org.apache.kafka.common.TopicPartition;

import java.util.Objects;

/**
 * One partition's step in a put's transaction: its stored next offset moves from
 * {@code expected} (what this task believes is stored; null when nothing is) to {@code next}.
 */
public record OffsetMove(TopicPartition partition, Long expected, long next) {

    public OffsetMove {
        Objects.requireNonNull(partition, "partition");
        if (next < 0 || (expected != null && next <= expected)) {
            throw new IllegalArgumentException("an offset moves forward: " + partition + " " + expected + " -> " + next);
        }
    }
}

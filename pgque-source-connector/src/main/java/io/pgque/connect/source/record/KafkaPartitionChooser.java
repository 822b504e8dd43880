/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.connect.source.config.KafkaPartitioner;

/** The Kafka partition of a record, per {@code pgque.kafka.partitioner}. */
public final class KafkaPartitionChooser {

    private final KafkaPartitioner mode;
    private final int partitions;

    private KafkaPartitionChooser(KafkaPartitioner mode, int partitions) {
        this.mode = mode;
        this.partitions = partitions;
    }

    /** The producer picks (it hashes the record key), so same key, same partition. */
    public static KafkaPartitionChooser byKey() {
        return new KafkaPartitionChooser(KafkaPartitioner.KEY, 0);
    }

    /** Slot {@code k} to partition {@code k mod partitions}. */
    public static KafkaPartitionChooser bySlot(int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
        }
        return new KafkaPartitionChooser(KafkaPartitioner.SLOT, partitions);
    }

    /** The partition, or null to let the producer choose. */
    public Integer partitionOf(int slot) {
        return mode == KafkaPartitioner.SLOT ? slot % partitions : null;
    }
}

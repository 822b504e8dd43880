/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.connect.common.config.EnumChoice;

/** Which Kafka partition an event goes to. */
public enum KafkaPartitioner {
    /** Leave it to the producer, which hashes the record key (the event's partition key). */
    KEY,
    /** Slot {@code k} goes to partition {@code k mod partitions}: one slot never spans two partitions. */
    SLOT;

    public static final EnumChoice<KafkaPartitioner> CHOICE = EnumChoice.of(KafkaPartitioner.class);
}

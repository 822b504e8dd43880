/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.offsets;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Connect's source partition and offset for an event: partition {@code {queue, consumer, slot}},
 * offset {@code {batch_id, ev_id}}. In at-least-once mode the engine's slot cursor, not these
 * offsets, decides where reading resumes; they are stored for operators. In exactly-once mode
 * the offset is committed in the same Kafka transaction as the records, and tells a new owner of
 * the slot which part of the re-issued batch Kafka already holds.
 */
public final class SourceOffsets {

    public static final String QUEUE = "queue";
    public static final String CONSUMER = "consumer";
    public static final String SLOT = "slot";
    /** Cooperative mode: the worker whose batch the record came from. */
    public static final String SUBCONSUMER = "subconsumer";
    public static final String BATCH_ID = "batch_id";
    public static final String EVENT_ID = "ev_id";

    private SourceOffsets() {
    }

    /**
     * The source partition of a slot. The key order is fixed on purpose: Connect finds stored
     * offsets by the serialized partition, and {@code Map.of} iterates in an order that changes
     * from one JVM to the next, so a restarted worker would not find its own offsets.
     */
    public static Map<String, Object> partition(String queue, String consumer, int slot) {
        Map<String, Object> partition = new LinkedHashMap<>();
        partition.put(QUEUE, queue);
        partition.put(CONSUMER, consumer);
        partition.put(SLOT, slot);
        return Collections.unmodifiableMap(partition);
    }

    /**
     * The source partition of a cooperative worker: a worker holds one batch at a time, and gets
     * the same batch, id and all, again after a restart under the same name, so its last offset
     * tells how much of that batch Kafka holds. Fixed key order, as for {@link #partition}.
     */
    public static Map<String, Object> memberPartition(String queue, String consumer, String subconsumer) {
        Map<String, Object> partition = new LinkedHashMap<>();
        partition.put(QUEUE, queue);
        partition.put(CONSUMER, consumer);
        partition.put(SUBCONSUMER, subconsumer);
        return Collections.unmodifiableMap(partition);
    }

    /** One per record, so kept cheap; unlike the partition, an offset is never looked up by its form. */
    public static Map<String, Object> offset(long batchId, long eventId) {
        return Map.of(BATCH_ID, batchId, EVENT_ID, eventId);
    }
}

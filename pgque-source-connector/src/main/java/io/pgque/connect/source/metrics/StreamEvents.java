/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.metrics;

import io.pgque.connect.source.record.ReaderId;

/**
 * What the stream of batches reports as it goes, per reader (a slot under a lease, or a
 * cooperative member); the metrics listen. Called on the poll thread. Every method does nothing
 * unless overridden.
 */
public interface StreamEvents {

    /** A claim took the slot (a takeover: the epoch went up). Only readers that hold a lease report it. */
    default void leaseAcquired(ReaderId reader) {
    }

    /** The reader found what it read is no longer its own (fenced, or the lease ran out and was taken). */
    default void leaseLost(ReaderId reader) {
    }

    /** Records of a batch (a chunk of it, at most {@code pgque.batch.max.events}) were handed to Connect. */
    default void batchEmitted(ReaderId reader, int records) {
    }

    /** A batch was acked in PostgreSQL after Kafka had every record of it; {@code records} counts its events. */
    default void batchAcked(ReaderId reader, int records) {
    }

    /** A batch was found whole in Kafka after a claim (exactly-once) and is acked without being sent again. */
    default void batchSkipped(ReaderId reader, int events) {
    }

    /** A batch read ahead while the one before it streamed was opened as read. */
    default void batchReadAhead(ReaderId reader) {
    }

    /**
     * The batch read ahead just opened ({@link #batchReadAhead}) was found by the scan another slot
     * of the task ran over the same window: it cost no scan of its own.
     */
    default void batchReadAheadWithoutScan(ReaderId reader) {
    }

    /**
     * The first chunk of a batch read ahead went to Kafka before the batch in front of it was
     * acked (at-least-once).
     */
    default void batchSentAhead(ReaderId reader) {
    }

    StreamEvents NONE = new StreamEvents() {
    };
}

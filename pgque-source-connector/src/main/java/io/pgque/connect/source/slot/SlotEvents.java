/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.slot;

/**
 * What the lease loop reports as it goes; the metrics listen. Called on the poll thread. Every
 * method does nothing unless overridden.
 */
public interface SlotEvents {

    /** A claim took the slot (a takeover: the epoch went up). */
    default void leaseAcquired(int slot, long epoch) {
    }

    /** The task found it no longer holds the slot (fenced, or the lease ran out and was taken). */
    default void leaseLost(int slot) {
    }

    /** Records of a batch (a chunk of it, at most {@code pgque.batch.max.events}) were handed to Connect. */
    default void batchEmitted(int slot, int records) {
    }

    /** A batch was acked in PostgreSQL after Kafka had every record of it; {@code records} counts its events. */
    default void batchAcked(int slot, int records) {
    }

    /** A batch was found whole in Kafka after a claim (exactly-once) and is acked without being sent again. */
    default void batchSkipped(int slot, int events) {
    }

    /** A batch read ahead while the one before it streamed was opened as read (see {@link SlotPoller}). */
    default void batchReadAhead(int slot) {
    }

    /**
     * The batch read ahead just opened ({@link #batchReadAhead}) was found by the scan another slot
     * of the task ran over the same window: it cost no scan of its own.
     */
    default void batchReadAheadWithoutScan(int slot) {
    }

    /**
     * The first chunk of a batch read ahead went to Kafka before the batch in front of it was
     * acked (at-least-once; see {@link SlotPoller}).
     */
    default void batchSentAhead(int slot) {
    }

    SlotEvents NONE = new SlotEvents() {
    };
}

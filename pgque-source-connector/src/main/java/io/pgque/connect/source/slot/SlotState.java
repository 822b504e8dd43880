/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.slot;

import io.pgque.client.ReadAhead;

/**
 * What one task knows about one of its slots: whether it holds the lease (and at which epoch),
 * the batch it has in flight, and when to look at the slot next. Touched only under the
 * {@link SlotPoller}'s lock.
 */
final class SlotState {

    static final long NO_LEASE = -1;

    private final int slot;
    private long epoch = NO_LEASE;
    private StreamedBatch batch;
    private SentAhead sentAhead;
    private long nextRenewalNanos;
    private long nextAttemptNanos;
    private boolean deliveryCheck;
    private boolean behind;
    private long lastBatchEvents;

    SlotState(int slot) {
        this.slot = slot;
    }

    int slot() {
        return slot;
    }

    boolean leased() {
        return epoch != NO_LEASE;
    }

    long epoch() {
        return epoch;
    }

    StreamedBatch batch() {
        return batch;
    }

    boolean idle() {
        return batch == null;
    }

    /**
     * The batch read ahead after {@link #batch()} whose first chunk already went to Kafka, not yet
     * opened in PgQue (it is opened when the current batch is acked); null when none.
     */
    SentAhead sentAhead() {
        return sentAhead;
    }

    void sentAhead(SentAhead next) {
        sentAhead = next;
    }

    /** The batch sent ahead, handed to the caller (null when there is none). */
    SentAhead takeSentAhead() {
        SentAhead taken = sentAhead;
        sentAhead = null;
        return taken;
    }

    /** When the lease should be renewed explicitly, if nothing else (receive, ack) renewed it first. */
    long nextRenewalNanos() {
        return nextRenewalNanos;
    }

    long nextAttemptNanos() {
        return nextAttemptNanos;
    }

    /** A new lease: its first batch may be one a previous owner already put into Kafka. */
    void leaseAcquired(long newEpoch, long renewAt) {
        epoch = newEpoch;
        nextRenewalNanos = renewAt;
        deliveryCheck = true;
    }

    boolean needsDeliveryCheck() {
        return deliveryCheck;
    }

    void deliveryChecked() {
        deliveryCheck = false;
    }

    /**
     * Whether the slot's last batch was larger than a chunk: the slot is catching up, and its
     * next batch is likely large too, so it is read whole through a cursor, in one scan.
     */
    boolean behind() {
        return behind;
    }

    /** The slot had no batch ready: it is no longer behind. */
    void caughtUp() {
        behind = false;
    }

    void renewAt(long nanos) {
        nextRenewalNanos = nanos;
    }

    /** @param larger whether the batch holds more than its first chunk */
    void batchStarted(StreamedBatch inFlight, boolean larger) {
        batch = inFlight;
        behind = larger;
    }

    /** Events in the slot's last acked batch (0 before the first). */
    long lastBatchEvents() {
        return lastBatchEvents;
    }

    /** The batch was acked: the slot is at a batch boundary again and may be read at once. */
    void batchFinished(long now) {
        if (batch != null) {
            lastBatchEvents = batch.size();
        }
        batch = null;
        nextAttemptNanos = now;
    }

    /** Lease gone: forget the batch without acking it; its events come again to whoever owns the slot. */
    StreamedBatch leaseLost(long now) {
        StreamedBatch dropped = batch;
        sentAhead = null;
        epoch = NO_LEASE;
        behind = false;
        batch = null;
        nextAttemptNanos = now;
        return dropped;
    }

    void restUntil(long nanos) {
        nextAttemptNanos = nanos;
    }

    /**
     * A batch read ahead that is streaming before it is open.
     *
     * @param batch  its records' ticket, to become the slot's batch once opened
     * @param read   what was read ahead, to open it by
     * @param larger whether it holds more than the chunk already sent
     */
    record SentAhead(StreamedBatch batch, ReadAhead read, boolean larger) {
    }
}

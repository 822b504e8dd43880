/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.reader.AheadReader;
import io.pgque.connect.source.reader.BatchReader;

/**
 * What a stream knows about one of its readers: whether it holds the right to read, the batch it
 * has in flight (and the one sent ahead of it), the reads ahead of its next batches, and when to
 * look at it next. Its {@link #state()} is worked out here alone, and every change of it is one
 * of the transitions below. Touched only on the poll thread, under the stream's lock.
 */
final class Lane {

    /** The ticks heard before a batch was opened, when it is not known: its ack never waits for a tick. */
    static final long TICKS_UNKNOWN = -1;

    private final BatchReader reader;
    private final AheadReader ahead;
    private boolean leased;
    private StreamedBatch batch;
    private SentAhead sentAhead;
    private NextBatches next = new NextBatches();
    private long nextRenewalNanos;
    private long nextAttemptNanos;
    private boolean deliveryCheck;
    private boolean firstOfLease;
    private boolean behind;
    private long lastBatchEvents;
    /** {@link PollLoop#ticksHeard} before the batch in flight was opened. */
    private long ticksBeforeOpen;
    /** Whether the delivered batch's ack waits for the next tick, and until when at most. */
    private boolean ackWaitsForTick;
    private long ackDeadlineNanos;

    Lane(BatchReader reader) {
        this.reader = reader;
        this.ahead = reader.ahead().orElse(null);
    }

    BatchReader reader() {
        return reader;
    }

    /** The reader's read-ahead; null when it reads nothing ahead. */
    AheadReader ahead() {
        return ahead;
    }

    /** Where the reader stands; see {@link ReaderState}. */
    ReaderState state() {
        if (!leased) {
            return ReaderState.UNLEASED;
        }
        if (batch == null) {
            return ReaderState.RESTING;
        }
        if (!batch.complete()) {
            return batch.atMostAChunkOutstanding() ? ReaderState.STREAMING : ReaderState.BACK_PRESSURED;
        }
        if (!batch.isDelivered()) {
            return sentAhead != null ? ReaderState.SENT_AHEAD : ReaderState.AWAITING_KAFKA;
        }
        return next.pending() ? ReaderState.AWAITING_READ_AHEAD : ReaderState.DELIVERED;
    }

    /**
     * Whether records of this reader still wait on Kafka: of its batch, or of the batch sent ahead
     * after it.
     */
    boolean undelivered() {
        return state().undelivered() || sentAhead != null && sentAhead.batch().anyOutstanding();
    }

    /**
     * When, in {@link System#nanoTime()}, the reader next has work without a wake-up:
     * {@code Long.MIN_VALUE} for now, {@code Long.MAX_VALUE} for never.
     *
     * @param sendsAheadNow whether the first chunk of its next batch may go out now
     * @param giveUpAheadNanos how long a delivered batch waits for its read-ahead at most
     */
    long dueNanos(boolean sendsAheadNow, long giveUpAheadNanos) {
        ReaderState state = state();
        if (state == ReaderState.DELIVERED && ackWaitsForTick) {
            return ackDeadlineNanos; // or the tick, which wakes the stream
        }
        if (state.dueNow() || sendsAheadNow) {
            return Long.MIN_VALUE;
        }
        return switch (state) {
            case UNLEASED, RESTING -> nextAttemptNanos;
            case AWAITING_READ_AHEAD -> Math.min(next.since() + giveUpAheadNanos, nextRenewalNanos);
            default -> nextRenewalNanos;
        };
    }

    // ---- what the state is made of, read by the stream's steps ----

    StreamedBatch batch() {
        return batch;
    }

    SentAhead sentAhead() {
        return sentAhead;
    }

    NextBatches next() {
        return next;
    }

    boolean leased() {
        return leased;
    }

    long nextRenewalNanos() {
        return nextRenewalNanos;
    }

    long nextAttemptNanos() {
        return nextAttemptNanos;
    }

    /** Whether the first batch of a new lease is still to be checked against what Kafka holds. */
    boolean needsDeliveryCheck() {
        return deliveryCheck;
    }

    /** Whether the lease has not received yet: its first batch may come from the scan its stream's slots share. */
    boolean firstOfLease() {
        return firstOfLease;
    }

    /** Whether the last batch was larger than a chunk: the next is likely large too, read whole in one scan. */
    boolean behind() {
        return behind;
    }

    /** {@link PollLoop#ticksHeard} before the batch in flight was opened. */
    long ticksBeforeOpen() {
        return ticksBeforeOpen;
    }

    /** Whether the delivered batch's ack waits for the next tick (see {@link #ackAfterTick}). */
    boolean ackWaitsForTick() {
        return ackWaitsForTick;
    }

    long ackDeadlineNanos() {
        return ackDeadlineNanos;
    }

    /** Events in the last acked batch (0 before the first). */
    long lastBatchEvents() {
        return lastBatchEvents;
    }

    // ---- the transitions ----

    /** UNLEASED to RESTING: a new lease, whose first batch may be one a previous owner put into Kafka. */
    void leaseAcquired(long renewAt) {
        leased = true;
        nextRenewalNanos = renewAt;
        deliveryCheck = true;
        firstOfLease = true;
    }

    /** Any state to UNLEASED: forgets the batch without acking it; returns it (null when none). */
    StreamedBatch leaseLost(long now) {
        StreamedBatch dropped = batch;
        ackWaitsForTick = false;
        sentAhead = null;
        leased = false;
        behind = false;
        batch = null;
        nextAttemptNanos = now;
        return dropped;
    }

    /** Stays UNLEASED or RESTING until {@code nanos}. */
    void restUntil(long nanos) {
        nextAttemptNanos = nanos;
    }

    /** RESTING found no batch: the reader is no longer behind. */
    void caughtUp() {
        behind = false;
        firstOfLease = false;
    }

    /**
     * RESTING to streaming {@code inFlight}; {@code larger}: it holds more than its first chunk;
     * {@code ticksBefore}: the ticks heard before it was opened.
     */
    void batchStarted(StreamedBatch inFlight, boolean larger, long ticksBefore) {
        ticksBeforeOpen = ticksBefore;
        ackWaitsForTick = false;
        firstOfLease = false;
        batch = inFlight;
        behind = larger;
        next = new NextBatches();
    }

    /**
     * DELIVERED stays so until the next tick or {@code deadline}: its ack then goes with the next
     * batch's receive in one transaction, rather than alone now and the receive later.
     */
    void ackAfterTick(long deadline) {
        ackWaitsForTick = true;
        ackDeadlineNanos = deadline;
    }

    /** The first batch of the lease was checked against what Kafka holds. */
    void deliveryChecked() {
        deliveryCheck = false;
    }

    /** AWAITING_KAFKA to SENT_AHEAD. */
    void sendingAhead(SentAhead ahead) {
        sentAhead = ahead;
    }

    /** The batch sent ahead, handed to the caller, which opens it (null when there is none). */
    SentAhead takeSentAhead() {
        SentAhead taken = sentAhead;
        sentAhead = null;
        return taken;
    }

    /** DELIVERED to RESTING: the batch was acked, the reader may read again at once. */
    void batchFinished(long now) {
        ackWaitsForTick = false;
        if (batch != null) {
            lastBatchEvents = batch.size();
        }
        batch = null;
        nextAttemptNanos = now;
    }

    /** The right to read was kept (or the reader read, which keeps it) until {@code nanos}. */
    void renewAt(long nanos) {
        nextRenewalNanos = nanos;
    }
}

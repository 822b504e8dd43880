/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.reader.BatchReader;
import io.pgque.connect.source.stream.LaneChange.AckAfterTick;
import io.pgque.connect.source.stream.LaneChange.Acked;
import io.pgque.connect.source.stream.LaneChange.Claimed;
import io.pgque.connect.source.stream.LaneChange.FoundNothing;
import io.pgque.connect.source.stream.LaneChange.Lost;
import io.pgque.connect.source.stream.LaneChange.NotClaimed;
import io.pgque.connect.source.stream.LaneChange.Renewed;
import io.pgque.connect.source.stream.LaneChange.SentAheadOpened;
import io.pgque.connect.source.stream.LaneChange.SentAheadOut;
import io.pgque.connect.source.stream.LaneChange.Started;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import static io.pgque.connect.source.stream.ReaderState.AWAITING_KAFKA;
import static io.pgque.connect.source.stream.ReaderState.AWAITING_READ_AHEAD;
import static io.pgque.connect.source.stream.ReaderState.DELIVERED;
import static io.pgque.connect.source.stream.ReaderState.RESTING;
import static io.pgque.connect.source.stream.ReaderState.UNLEASED;

/**
 * What a stream knows about one of its readers: whether it holds the right to read, the batch it
 * has in flight (and the one sent ahead of it), the reads ahead of its next batches, and when to
 * look at it next. Its {@link #state()} is worked out here alone, and it changes only by
 * {@link #apply}: the steps report what they did as a {@link LaneChange}, and the table there
 * says which state each change may come from. Touched only on the poll thread, under the
 * stream's lock.
 */
final class Lane {

    /** The ticks heard before a batch was opened, when it is not known: its ack never waits for a tick. */
    static final long TICKS_UNKNOWN = -1;

    private final BatchReader reader;
    private final LaneAhead ahead;
    private boolean leased;
    private StreamedBatch batch;
    private SentAhead sentAhead;
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
        this.ahead = new LaneAhead(reader.ahead().orElse(null));
    }

    BatchReader reader() {
        return reader;
    }

    /** The reader's read-ahead (one that holds nothing when it reads nothing ahead). */
    LaneAhead ahead() {
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
        return ahead.pending() ? ReaderState.AWAITING_READ_AHEAD : ReaderState.DELIVERED;
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
            case AWAITING_READ_AHEAD -> Math.min(ahead.since() + giveUpAheadNanos, nextRenewalNanos);
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

    /** Whether the delivered batch's ack waits for the next tick (see {@link AckAfterTick}). */
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

    // ---- the transitions: the one place the state changes ----

    /** From which states each change may come (the states it leads to are on {@link LaneChange}'s records). */
    static final Map<Class<? extends LaneChange>, Set<ReaderState>> FROM = Map.of(
            Claimed.class, EnumSet.of(UNLEASED),
            NotClaimed.class, EnumSet.of(UNLEASED),
            FoundNothing.class, EnumSet.of(RESTING),
            Started.class, EnumSet.of(RESTING),
            AckAfterTick.class, EnumSet.of(DELIVERED),
            // Kafka's acknowledgements arrive on another thread: a batch awaiting them may be delivered by now.
            SentAheadOut.class, EnumSet.of(AWAITING_KAFKA, DELIVERED),
            // The read of the next batch ends on another thread: one awaiting it may be plain delivered by now.
            Acked.class, EnumSet.of(DELIVERED, AWAITING_READ_AHEAD),
            SentAheadOpened.class, EnumSet.of(DELIVERED, AWAITING_READ_AHEAD),
            Renewed.class, EnumSet.complementOf(EnumSet.of(UNLEASED)),
            Lost.class, EnumSet.allOf(ReaderState.class));

    /**
     * Applies what a step did.
     *
     * @throws IllegalStateException when the change cannot come from the lane's state (a defect)
     */
    void apply(LaneChange change) {
        ReaderState from = state();
        if (!FROM.get(change.getClass()).contains(from)) {
            throw new IllegalStateException(reader.id().logName() + ": " + change.getClass().getSimpleName()
                    + " cannot come from " + from);
        }
        // Java 17 has no switch over types: one branch a change, in the table's order.
        if (change instanceof Claimed c) {
            leased = true;
            nextRenewalNanos = c.renewAt();
            deliveryCheck = true;
            firstOfLease = true;
        } else if (change instanceof NotClaimed c) {
            nextAttemptNanos = c.retryAt();
        } else if (change instanceof FoundNothing c) {
            nextRenewalNanos = c.renewAt();
            behind = false;
            firstOfLease = false;
            nextAttemptNanos = c.lookAgainAt();
        } else if (change instanceof Started c) {
            start(c.batch(), c.larger(), c.ticksBefore(), c.renewAt());
        } else if (change instanceof AckAfterTick c) {
            ackWaitsForTick = true;
            ackDeadlineNanos = c.deadline();
        } else if (change instanceof SentAheadOut c) {
            if (sentAhead != null) {
                throw new IllegalStateException(reader.id().logName() + ": a batch was sent ahead already");
            }
            sentAhead = c.sent();
        } else if (change instanceof Acked c) {
            finish();
            sentAhead = null;
            nextAttemptNanos = c.now();
            nextRenewalNanos = c.renewAt();
        } else if (change instanceof SentAheadOpened c) {
            if (sentAhead == null) {
                throw new IllegalStateException(reader.id().logName() + ": no batch was sent ahead");
            }
            SentAhead opened = sentAhead;
            finish();
            sentAhead = null;
            start(opened.batch(), opened.larger(), TICKS_UNKNOWN, c.renewAt());
        } else if (change instanceof Renewed c) {
            nextRenewalNanos = c.renewAt();
        } else if (change instanceof Lost c) {
            ackWaitsForTick = false;
            sentAhead = null;
            leased = false;
            behind = false;
            batch = null;
            nextAttemptNanos = c.lookAgainAt();
            ahead.drop();
        }
    }

    private void start(StreamedBatch inFlight, boolean larger, long ticksBefore, long renewAt) {
        // Reads ahead left from the batch before (the one after it, found empty) follow nothing now.
        ahead.drop();
        ticksBeforeOpen = ticksBefore;
        ackWaitsForTick = false;
        firstOfLease = false;
        deliveryCheck = false; // the batch was checked against what Kafka holds as it was opened
        batch = inFlight;
        behind = larger;
        nextRenewalNanos = renewAt;
    }

    private void finish() {
        ackWaitsForTick = false;
        if (batch != null) {
            lastBatchEvents = batch.size();
        }
        batch = null;
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

/**
 * What a step did to a reader, as {@link Steps} reports it to the {@link Lane}: the lane's state
 * changes only by {@link Lane#apply}, whose table says from which {@link ReaderState}s each change
 * may come. Times are {@link System#nanoTime()}; {@code renewAt} is when the right to read wants
 * renewing next (every successful call on the slot renews it).
 */
sealed interface LaneChange {

    /** UNLEASED to RESTING: a new lease, whose first batch may be one a previous owner put into Kafka. */
    record Claimed(long renewAt) implements LaneChange {
    }

    /** Stays UNLEASED: the slot is someone else's; try again at {@code retryAt}. */
    record NotClaimed(long retryAt) implements LaneChange {
    }

    /** Stays RESTING: no batch was there; look again at {@code lookAgainAt} (or on a tick). The reader caught up. */
    record FoundNothing(long renewAt, long lookAgainAt) implements LaneChange {
    }

    /**
     * RESTING to streaming {@code batch} (STREAMING, or further on when it is all out or skipped);
     * {@code larger}: it holds more than its first chunk; {@code ticksBefore}: the ticks heard
     * before it was opened ({@link Lane#TICKS_UNKNOWN} when not known).
     */
    record Started(StreamedBatch batch, boolean larger, long ticksBefore, long renewAt) implements LaneChange {
    }

    /**
     * Stays DELIVERED until the next tick or {@code deadline}: its ack then goes with the next
     * batch's receive in one transaction, rather than alone now and the receive later.
     */
    record AckAfterTick(long deadline) implements LaneChange {
    }

    /** AWAITING_KAFKA to SENT_AHEAD: the first chunk of the batch read ahead went out. */
    record SentAheadOut(SentAhead sent) implements LaneChange {
    }

    /**
     * DELIVERED (or AWAITING_READ_AHEAD) to RESTING, due to read again from {@code now}: the batch
     * was acked; a batch sent ahead and not opened is forgotten (what went out of it comes again).
     */
    record Acked(long now, long renewAt) implements LaneChange {
    }

    /** DELIVERED to streaming the batch sent ahead: the delivered one was acked and that one opened, in one transaction. */
    record SentAheadOpened(long renewAt) implements LaneChange {
    }

    /** Stays where it is: the right to read was kept until {@code renewAt}, or is to be renewed then. */
    record Renewed(long renewAt) implements LaneChange {
    }

    /** Any state to UNLEASED: the lease (or the batch) is gone; what was in flight is forgotten unacked. */
    record Lost(long lookAgainAt) implements LaneChange {
    }
}

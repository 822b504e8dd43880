/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.reader;

import io.pgque.client.OpenedBatch;
import io.pgque.connect.source.record.ReaderId;
import io.pgque.connect.source.record.UnreadableEvents;

import java.util.Optional;

/**
 * One source of batches for the stream: a slot read over its lease ({@link SlotReader}), or a
 * member of a cooperative consumer ({@link MemberReader}). The stream decides when to open, read
 * on, ack and keep alive; the reader knows how, in its mode's terms. Every call runs on the poll
 * thread; a transient database failure is thrown as it is and changes nothing.
 */
public interface BatchReader extends UnreadableEvents.DeadLetters {

    /** Who reads, for the records: the slot with its current lease's epoch, or the member. */
    ReaderId id();

    /**
     * Takes the right to read (a slot's lease). True when the reader holds it now; its first
     * batch may then be one a previous owner already put into Kafka (exactly-once looks).
     * False when another worker holds it: try again later.
     */
    boolean claim();

    /**
     * The next batch, empty when none is ready: a first page of at most {@code max} events, the
     * rest through a cursor when it is read on; or, when {@code whole} (the reader is behind), the
     * whole batch into a cursor in one scan, where the reader can.
     */
    Optional<OpenedBatch> open(boolean whole, int max) throws LostException;

    /** Acks finished batch {@code done} and opens the next as {@link #open} does, in one transaction where it can. */
    Optional<OpenedBatch> ackAndOpen(long done, boolean whole, int max) throws LostException;

    /** The rest of open batch {@code batchId} after event {@code after}, through a cursor. */
    RestOfBatch readOn(long batchId, long after) throws LostException;

    /** Acks a batch Kafka has whole; false when it was finished already (an earlier ack's answer was lost). */
    boolean ack(long batchId) throws LostException;

    /** How the right to read held up when the stream kept it alive while a batch waited on Kafka. */
    enum KeepAlive {
        /** Still ours. */
        KEPT,
        /** No answer for now (a competing claim held the row): the ack will tell. */
        NOT_NOW,
        /** Someone else owned it in between: what was open may have been handled; {@link #id} has the new lease. */
        TAKEN_OVER
    }

    /** Keeps the right to read alive (renews a slot's lease, touches a member). */
    KeepAlive keepAlive() throws LostException;

    /** Gives the right to read back at a batch boundary, on stopping (a slot's lease). */
    void release();

    /**
     * Whether a reader that found no batch may wait for the next tick instead of asking again
     * every poll interval: only a tick can give it one (a slot). A cooperative member may be
     * handed a silent sibling's batch without a tick.
     */
    boolean waitsForTicks();

    /** Reading the next batches ahead while the current one streams, for a reader that does. */
    Optional<AheadReader> ahead();
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * One slot of a partitioned consumer, as one worker reads it ({@link SlotConsumer#slot}). The
 * worker must hold the slot's lease to receive, ack or nack on it: {@link #claim} takes a free
 * or expired lease (or renews its own), and every receive and ack renews it for the TTL given at
 * claim. A worker that stalls past its TTL may lose the slot, and then its next call fails with
 * {@link SlotFencedException} instead of acking work twice. Release a slot only after acking its
 * batch. Holds only its parameters; safe to share.
 */
public final class Slot {

    private static final String READ_BATCH = "select " + Rows.MESSAGE_COLUMNS
            + " from pgque.read_batch_partitioned(?, ?, ?, ?, ?, ?, ?) m";
    private static final String ACK_OPEN = "select pgque.ack_partitioned(?, ?, ?, ?, ?)";
    private static final String ACK = "select pgque.ack_partitioned(?, ?, ?, ?, ?, ?)";
    private static final String NACK = "select pgque.nack_partitioned(?, ?, ?, ?, ?, row(?, ?, null, "
            + "null, null, null, null, null, null, null)::pgque.message, " + Intervals.PARAM + ", ?)";
    private static final String DEAD_LETTER = "select pgque.dead_letter_partitioned(?, ?, ?, ?, ?, ?, ?)";
    private static final String PAUSE = "select pgque.pause_partitioned(?, ?, ?, ?, ?, row(?, ?, null, "
            + "null, null, null, null, null, null, null)::pgque.message, " + Intervals.PARAM + ", ?)";

    private final PartitionedWorker worker;
    private final int slot;
    private final BatchReads reads;
    private final AheadPages ahead;
    private final SlotReceiving receiving;

    Slot(PartitionedWorker worker, int slot) {
        this.worker = worker;
        this.slot = slot;
        this.reads = new BatchReads(worker.db, new BatchReads.Statements() {
            @Override
            public BatchReads.Call receive(java.sql.Connection c, int max) throws java.sql.SQLException {
                return worker.windowEvents != null && worker.engine.in(c).catchUpWindow()
                        ? new BatchReads.Call(PartitionedWorker.RECEIVE_WINDOW,
                                worker.args(slot, max, worker.windowEvents))
                        : new BatchReads.Call(PartitionedWorker.RECEIVE, worker.args(slot, max));
            }

            @Override
            public BatchReads.Call readOn(long batchId, long afterMsgId) {
                return new BatchReads.Call(READ_BATCH, worker.args(slot, afterMsgId, WholeBatch.ALL));
            }

            @Override
            public BatchReads.Call ack(long batchId) {
                return new BatchReads.Call(ACK, worker.args(slot, batchId));
            }

            @Override
            public BatchReads.Call deadLetter(long msgId, String reason) {
                return new BatchReads.Call(DEAD_LETTER, worker.args(slot, msgId, reason));
            }

            @Override
            public String what(String action) {
                return worker.what(action + " on slot " + slot);
            }
        });
        this.ahead = new AheadPages(worker);
        this.receiving = new SlotReceiving(worker, slot, reads, null, "receive");
    }

    /** The slot's number, from 0 to N - 1. */
    public int number() {
        return slot;
    }

    /**
     * Claims (or, if this worker holds it, renews) the lease on the slot for {@code ttl}.
     *
     * @return the lease, or empty if another worker holds a live lease on the slot or is busy on it
     */
    public Optional<SlotLease> claim(Duration ttl) {
        double seconds = Intervals.seconds(ttl);
        Long epoch = worker.db.run(worker.what("claim slot " + slot), c -> Sql.nullableLong(c,
                "select pgque.claim_slot(?, ?, ?, ?, " + Intervals.PARAM + ")",
                worker.queue, worker.consumer, slot, worker.leaseId, seconds));
        return epoch == null ? Optional.empty() : Optional.of(new SlotLease(slot, epoch));
    }

    /**
     * Gives up this worker's lease on the slot; refused by the engine (a {@link PgQueException}
     * with SQLSTATE {@code 55000}) while the slot has an open batch: ack first.
     *
     * @return true if released, false if this worker did not hold the lease
     */
    public boolean release() {
        return worker.db.run(worker.what("release slot " + slot), c -> Sql.one(c,
                "select pgque.release_slot(?, ?, ?, ?)", rs -> rs.getBoolean(1),
                worker.queue, worker.consumer, slot, worker.leaseId));
    }

    /** {@link #receive(int)} with pages of {@value Consumer#DEFAULT_PAGE_SIZE}. */
    public Optional<Batch> receive() {
        return receive(Consumer.DEFAULT_PAGE_SIZE);
    }

    /**
     * The slot's next batch, all of it (as {@link Consumer#receive(String, String, int)} reads a
     * batch: a first page, then the rest in one query); until acked, the same batch comes back.
     *
     * @return the batch, or empty when the slot has no events ready
     * @throws SlotNotLeasedException if nobody holds the slot
     * @throws SlotFencedException    if another worker holds it
     */
    public Optional<Batch> receive(int pageSize) {
        return receiving.receive(pageSize);
    }

    /**
     * The first at most {@code max} events of the slot's batch (opening the next one when none is
     * open), for a reader that streams a batch rather than holding it whole; the rest, if the page
     * is full, comes from {@link #openRest}.
     *
     * @return the page, or empty when the slot has no events ready
     */
    public Optional<BatchPage> receivePage(int max) {
        return receiving.receivePage(max);
    }

    /**
     * {@link #receivePage} for a slot that is behind, in one scan: opens the slot's next batch and
     * reads all of it, once, into a cursor on a connection of {@code connections} (see
     * {@link BatchCursor}); the first page is the cursor's first chunk.
     *
     * @return the first page and the cursor over the rest, or empty when the slot has no events ready
     */
    public Optional<OpenedBatch> receiveThroughCursor(DataSource connections, int max) {
        return receiving.receiveThroughCursor(connections, max);
    }

    /**
     * Opens a batch read ahead while the slot had no open batch ({@link ReadAheadGroup#readFirstPage}).
     *
     * @return whether the slot's open batch now is {@code ahead}'s; false, opening nothing, when
     *         the slot moved otherwise in between ({@link ReadAhead#discard} it and receive)
     * @throws SlotFencedException if another worker holds the slot
     */
    public boolean open(ReadAhead ahead) {
        return receiving.open(ahead);
    }

    /**
     * The receives above, each acking the slot's open batch first in the same transaction: one
     * commit and one round trip less per batch. A slot with no open batch (an earlier ack
     * committed but its answer was lost) is not an error: the ack's purpose is met.
     */
    public SlotReceiving afterAck() {
        return new SlotReceiving(worker, slot, reads, c -> Sql.count(c, ACK_OPEN, worker.args(slot)),
                "ack and receive");
    }

    /**
     * The receives above, each acking batch {@code batchId} first in the same transaction, if it
     * is the slot's open batch. Use it whenever the call may be a retry: if an earlier one
     * committed but its answer was lost, the slot's open batch is already the next one, which the
     * caller has never seen; it is not acked but returned, so nothing is skipped.
     */
    public SlotReceiving afterAck(long batchId) {
        return new SlotReceiving(worker, slot, reads, c -> reads.ack(c, batchId), batchId,
                "ack batch " + batchId + " and receive");
    }

    /**
     * Finishes the slot's open batch and renews the lease.
     *
     * @throws BatchNotFoundException if the slot has no open batch
     * @throws SlotFencedException    if another worker took the slot over
     */
    public void ack() {
        String what = worker.what("ack slot " + slot);
        if (worker.db.run(what, c -> Sql.count(c, ACK_OPEN, worker.args(slot))) == 0) {
            throw new BatchNotFoundException(what + " failed: the slot has no open batch", null, null);
        }
    }

    /**
     * Finishes batch {@code batchId} if it is the slot's open batch, and renews the lease.
     *
     * @return false when the slot has no open batch or another one (the batch was finished before)
     * @throws SlotFencedException if another worker took the slot over
     */
    public boolean ack(long batchId) {
        return reads.ack(batchId);
    }

    /**
     * A cursor over the events of the slot's open batch {@code batchId} after {@code afterMsgId},
     * on a connection of {@code connections} that it keeps until closed or read to its end (see
     * {@link BatchCursor}). Checks and renews the lease.
     *
     * @throws SlotFencedException    if another worker holds the slot
     * @throws BatchNotFoundException if the slot has no open batch
     */
    public BatchCursor openRest(DataSource connections, long batchId, long afterMsgId) {
        return reads.openRest(connections, batchId, afterMsgId);
    }

    /**
     * Reads the batch that will follow open batch {@code batchId} once that one is acked, without
     * opening it: its first at most {@code max} events, and a cursor over the rest on a
     * connection of {@code connections}. Open it with {@link SlotReceiving#open} when this one is
     * done. The events between two ticks are fixed once the later tick exists, so what is read
     * ahead is exactly what the batch holds. Checks the lease but does not renew it, and locks
     * nothing.
     *
     * @return the batch read ahead, or empty when no tick follows the open batch yet, when its
     *         window holds no event of the slot, when {@code batchId} is not the slot's open batch,
     *         or when the engine predates read-ahead
     */
    public Optional<ReadAhead> readAhead(DataSource connections, long batchId, int max) {
        return ahead.throughCursor(connections, slot, batchId, max);
    }

    /**
     * {@link #readAhead} for a batch expected to fit one page, without a cursor: when the batch
     * has more, the page is {@linkplain BatchPage#full() full} and the rest is read once the
     * batch is open ({@link #openRest}).
     */
    public Optional<ReadAhead> readAheadPage(long batchId, int max) {
        return ahead.page(slot, batchId, null, max, null);
    }

    /**
     * {@link #readAheadPage} one batch further: the batch that will follow {@code previous}, a
     * batch read ahead after open batch {@code batchId} and not opened yet. Empty when nothing
     * follows {@code previous} yet, when {@code batchId} is no longer the slot's open batch, and
     * with an engine before 0.3.4.
     */
    public Optional<ReadAhead> readAheadPageAfter(long batchId, ReadAhead previous, int max) {
        Objects.requireNonNull(previous, "previous");
        return ahead.page(slot, batchId, previous.toTick(), max, null);
    }

    /**
     * Asks for a message of the slot's open batch to come back later (on the same slot), or
     * dead-letters it after the queue's {@code max_retries}; the batch stays open, ack it after.
     */
    public void nack(Message message, Duration retryAfter, String reason) {
        Objects.requireNonNull(message, "message");
        double seconds = Intervals.seconds(retryAfter);
        worker.db.run(worker.what("nack message " + message.msgId() + " on slot " + slot), c -> Sql.count(c, NACK,
                worker.args(slot, message.msgId(), message.batchId(), seconds, reason)));
    }

    /**
     * The pause failure policy: as {@link #nack}, and the message's key is blocked on the slot until
     * this message is acked after its redelivery or dead-lettered. The key's later events are set
     * aside meanwhile, in order and without a retry counted, and come back before any newer event
     * of the key; every other key of the slot flows. The key's events after this one in the open
     * batch are set aside too: the caller must not process them (a {@link PausedKeys} tracks it).
     * The batch stays open, ack it after. Repeating the call for the message in the same batch
     * gives the same answer.
     *
     * @param reason why, kept with the block and, should the message end there, with its dead letter
     * @return true when the key is blocked; false when the message had been retried the queue's
     *         {@code max_retries} times and went to the dead letters instead, which leaves the key
     *         unblocked (process its later events as usual)
     * @throws InvalidArgumentException  for a message without a partition key: there is no key to block
     * @throws MessageNotFoundException  for a message not (or no longer) in the slot's open batch
     * @throws BatchNotFoundException    when the slot has no open batch
     * @throws SlotFencedException       if another worker took the slot over
     */
    public boolean pause(Message message, Duration retryAfter, String reason) {
        Objects.requireNonNull(message, "message");
        double seconds = Intervals.seconds(retryAfter);
        return worker.db.run(worker.what("pause message " + message.msgId() + " on slot " + slot), c -> Sql.one(c,
                PAUSE, rs -> rs.getBoolean(1), worker.args(slot, message.msgId(), message.batchId(), seconds, reason)));
    }

    /**
     * Moves a message of the slot's open batch to the queue's dead letters at once, whatever its
     * retry count, for an event this consumer can never process; the batch stays open, ack it
     * after. Doing it twice for one message leaves one dead letter.
     *
     * @param reason why, kept with the dead letter (required)
     */
    public void deadLetter(long msgId, String reason) {
        reads.deadLetter(msgId, reason);
    }
}

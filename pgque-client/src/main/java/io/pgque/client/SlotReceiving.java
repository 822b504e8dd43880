/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The ways to receive a slot's next batch (whole, a first page, or whole into a cursor), each
 * after an ack in the same transaction when the handle came from {@link Slot#afterAck}: both
 * happen or neither does. Each requires this worker's lease on the slot, and renews it.
 */
public final class SlotReceiving {

    private static final String OPEN_READ_AHEAD = "select pgque.open_read_ahead_partitioned(?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String ACK_RECEIVE = "select " + Rows.MESSAGE_COLUMNS
            + " from pgque.ack_receive_partitioned(?, ?, ?, ?, ?, ?::bigint, ?, ?::bigint) m";

    private final PartitionedWorker worker;
    private final int slot;
    private final BatchReads reads;
    /** The ack run first in the same transaction; null: none. */
    private final SqlWork<Integer> ackFirst;
    /** The batch {@link #ackFirst} acks, when it names one: the engine may ack it and receive in one call. */
    private final Long ackedBatchId;
    private final String action;

    SlotReceiving(PartitionedWorker worker, int slot, BatchReads reads, SqlWork<Integer> ackFirst, String action) {
        this(worker, slot, reads, ackFirst, null, action);
    }

    SlotReceiving(PartitionedWorker worker, int slot, BatchReads reads, SqlWork<Integer> ackFirst, Long ackedBatchId,
                  String action) {
        this.worker = worker;
        this.slot = slot;
        this.reads = reads;
        this.ackFirst = ackFirst;
        this.ackedBatchId = ackedBatchId;
        this.action = action;
    }

    /**
     * The slot's next batch, all of it.
     *
     * @return the batch, or empty when the slot has no events ready
     * @throws SlotNotLeasedException if nobody holds the slot
     * @throws SlotFencedException    if another worker holds it; nothing was acked
     */
    public Optional<Batch> receive(int pageSize) {
        WholeBatch.checkPageSize(pageSize);
        return worker.db.run(what(), c -> {
            ack(c);
            return reads.whole(c, pageSize);
        });
    }

    /** The first at most {@code max} events of the slot's next batch; the rest through {@link Slot#openRest}. */
    public Optional<BatchPage> receivePage(int max) {
        WholeBatch.checkPageSize(max);
        String what = what();
        if (ackedBatchId != null && worker.engine(what).ackReceive()) {
            // One statement: one lease check and renewal, and one round trip, where an ack and a
            // receive in a transaction take two of the first and three of the second.
            return worker.db.runStatement(what, c -> BatchPage.of(Sql.list(c, ACK_RECEIVE, Rows::message,
                    worker.args(slot, ackedBatchId, BatchPage.probeSize(max), worker.windowEvents)), max));
        }
        return worker.db.run(what, c -> {
            ack(c);
            return reads.page(c, max);
        });
    }

    /**
     * The slot's next batch read whole, in one scan, into a cursor on a connection of
     * {@code connections}: its first at most {@code max} events and the cursor over the rest
     * (see {@link Slot#receiveThroughCursor}).
     */
    public Optional<OpenedBatch> receiveThroughCursor(DataSource connections, int max) {
        Objects.requireNonNull(connections, "connections");
        WholeBatch.checkPageSize(max);
        String what = what();
        boolean window = worker.windowEvents != null && worker.engine(what).catchUpWindow();
        BatchCursor cursor = window
                ? BatchCursor.declare(connections, BatchCursor.UNKNOWN, what, ackFirst,
                        PartitionedWorker.RECEIVE_WINDOW,
                        worker.args(slot, WholeBatch.ALL, worker.windowEvents))
                : BatchCursor.declare(connections, BatchCursor.UNKNOWN, what, ackFirst, PartitionedWorker.RECEIVE,
                        worker.args(slot, WholeBatch.ALL));
        return firstPageOf(cursor, max);
    }

    /**
     * Opens the batch read ahead ({@link Slot#readAhead}) after the ack. Nothing is opened when the
     * slot moved otherwise in between (the batch read ahead then is of no use:
     * {@link ReadAhead#discard} it and receive); the ack stands either way.
     *
     * @return whether the slot's open batch now is {@code ahead}'s (also when an earlier call
     *         opened it and its answer was lost)
     * @throws SlotFencedException if another worker holds the slot; nothing was acked
     */
    public boolean open(ReadAhead ahead) {
        Objects.requireNonNull(ahead, "ahead");
        return worker.db.run(worker.what(action + " (open batch " + ahead.batchId() + ") on slot " + slot), c -> {
            ack(c);
            return Sql.one(c, OPEN_READ_AHEAD, rs -> rs.getBoolean(1),
                    worker.args(slot, ahead.batchId(), ahead.fromTick(), ahead.toTick()));
        });
    }

    private void ack(Connection c) throws SQLException {
        if (ackFirst != null) {
            ackFirst.run(c);
        }
    }

    private String what() {
        return worker.what(action + " on slot " + slot);
    }

    /**
     * A batch read into {@code cursor}, as its first at most {@code max} events and the cursor
     * over the rest (closed when the page is all of it); empty when the cursor holds nothing.
     */
    static Optional<OpenedBatch> firstPageOf(BatchCursor cursor, int max) {
        List<Message> page;
        try {
            page = cursor.next(max);
        } catch (RuntimeException e) {
            cursor.close();
            throw e;
        }
        if (page.isEmpty()) {
            return Optional.empty();
        }
        boolean more = !cursor.exhausted();
        return Optional.of(new OpenedBatch(new BatchPage(page.get(0).batchId(), page, more), more ? cursor : null));
    }
}

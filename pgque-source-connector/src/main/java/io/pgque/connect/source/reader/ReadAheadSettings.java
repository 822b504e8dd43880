/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.reader;

import io.pgque.client.ScanSharing;

/**
 * How a stream of slots reads its slots' next batches ahead, and whether it may send them ahead.
 *
 * @param spareCursors cursor connections beyond one per slot that batches read ahead may hold; -1:
 *                     no read-ahead at all
 * @param pageChunks   chunks a batch read ahead in one query may hold (a larger one is read into a
 *                     cursor); {@link #PAGE_CHUNKS} in a task
 * @param sendAhead    whether the first chunk of a batch read ahead in one query may go to Kafka while
 *                     the slot's current batch, all of it taken, waits for its last acknowledgements
 *                     (only without Kafka transactions)
 * @param sharing      where the stream's scans serve the slots of the other streams reading the same
 *                     consumer ({@code SlotConsumer.readAheadGroup(slots, sharing)}: a task's, the
 *                     other tasks of its connector in the same worker, {@link ConnectorScans}); null:
 *                     the stream's own slots only
 */
public record ReadAheadSettings(int spareCursors, int pageChunks, boolean sendAhead, ScanSharing sharing) {

    /**
     * Chunks a batch read ahead without a cursor may hold: the catch-up window's batches (two and
     * a half chunks of the slot's events by default) are then read in one query each, and a slot
     * holds at most this many chunks read ahead beside the two it streams.
     */
    public static final int PAGE_CHUNKS = 3;

    /** Every batch is read once it is open. */
    public static final ReadAheadSettings OFF = new ReadAheadSettings(-1, PAGE_CHUNKS, false, null);

    /** Scans that serve the stream's own slots only. */
    public ReadAheadSettings(int spareCursors, int pageChunks, boolean sendAhead) {
        this(spareCursors, pageChunks, sendAhead, null);
    }

    public ReadAheadSettings {
        if (pageChunks < 1) {
            throw new IllegalArgumentException("pageChunks must be at least 1, was " + pageChunks);
        }
        if (spareCursors < 0 && sendAhead) {
            throw new IllegalArgumentException("sending ahead needs reading ahead");
        }
    }

    public boolean readAhead() {
        return spareCursors >= 0;
    }
}

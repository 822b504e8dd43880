/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.slot;

/**
 * How a {@link SlotPoller} reads its slots' next batches ahead, and whether it may send them ahead.
 *
 * @param spareCursors cursor connections beyond one per slot that batches read ahead may hold; -1:
 *                     no read-ahead at all
 * @param pageChunks   chunks a batch read ahead in one query may hold (a larger one is read into a
 *                     cursor); {@link SlotPoller#READ_AHEAD_PAGE_CHUNKS} in a task
 * @param sendAhead    whether the first chunk of a batch read ahead in one query may go to Kafka while
 *                     the slot's current batch, all of it taken, waits for its last acknowledgements
 *                     (only without Kafka transactions; see {@link SlotPoller})
 */
public record ReadAheadSettings(int spareCursors, int pageChunks, boolean sendAhead) {

    /** Every batch is read once it is open. */
    public static final ReadAheadSettings OFF = new ReadAheadSettings(-1, SlotPoller.READ_AHEAD_PAGE_CHUNKS, false);

    public ReadAheadSettings {
        if (pageChunks < 1) {
            throw new IllegalArgumentException("pageChunks must be at least 1, was " + pageChunks);
        }
        if (spareCursors < 0 && sendAhead) {
            throw new IllegalArgumentException("sending ahead needs reading ahead");
        }
    }

    boolean readAhead() {
        return spareCursors >= 0;
    }
}

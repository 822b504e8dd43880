/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.reader;

import io.pgque.client.ReadAhead;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One slot's view of reading ahead: its next batch read on a thread of the task's while its
 * current one streams, then opened as read when the current one is acked (see {@link ReadAheads}).
 */
public interface AheadReader {

    /**
     * Starts reading the batch after open batch {@code batchId}: whole into a cursor when it is
     * expected to be large ({@code large}), else its first {@link #pageEvents} in one query. Null
     * when a cursor is wanted and no connection is spare.
     */
    CompletableFuture<Optional<ReadAhead>> start(long batchId, boolean large);

    /** {@link #start}, empty where that reads nothing. */
    default CompletableFuture<Optional<ReadAhead>> startOrNone(long batchId, boolean large) {
        CompletableFuture<Optional<ReadAhead>> next = start(batchId, large);
        return next != null ? next : CompletableFuture.completedFuture(Optional.empty());
    }

    /**
     * Once {@code next} (the read-ahead of the batch after open batch {@code batchId}) is read,
     * reads the batch after that one too; null where only one batch is read ahead.
     */
    CompletableFuture<Optional<ReadAhead>> after(long batchId, CompletableFuture<Optional<ReadAhead>> next);

    /**
     * The first batch of a slot with no open batch (a new lease), read as a read-ahead in the
     * scan the stream's slots share, when it has several: every slot of a new lease starts at the
     * same tick, and read on its own each slot scanned the whole window. Empty where the reader
     * cannot, or the slot has nothing to read; open it with {@link #open}.
     */
    Optional<ReadAhead> first();

    /**
     * Opens a batch {@link #first} read (no batch was open).
     *
     * @return false when the slot moved otherwise in between and the engine opened nothing
     */
    boolean open(ReadAhead first) throws LostException;

    /** Most events a batch read ahead without a cursor holds. */
    int pageEvents();

    /**
     * Acks finished batch {@code done} and opens {@code ahead} after it, in one transaction.
     *
     * @return false when the slot moved otherwise in between and the engine opened nothing
     */
    boolean ackAndOpen(long done, ReadAhead ahead) throws LostException;

    /** The batch read ahead was opened: its cursor is now the slot's own. */
    void opened(ReadAhead read);

    /** Drops a batch read ahead that will not be opened (once per read-ahead). */
    void discard(ReadAhead read);

    /** Drops a read-ahead, now or once it is done. */
    default void discard(CompletableFuture<Optional<ReadAhead>> pending) {
        if (pending != null) {
            pending.thenAccept(read -> read.ifPresent(this::discard));
        }
    }
}

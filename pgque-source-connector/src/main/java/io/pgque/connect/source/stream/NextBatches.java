/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.client.ReadAhead;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The reads ahead of one reader's next batches while its current one streams: the next batch,
 * and the one after it. Touched on the poll thread only; the futures complete on the read-ahead
 * thread.
 */
final class NextBatches {

    /** The next batch, being read ahead; null when none is. */
    private CompletableFuture<Optional<ReadAhead>> next;
    private long since;
    /** The batch after {@link #next}, read ahead once that one is read; null when none is. */
    private CompletableFuture<Optional<ReadAhead>> afterNext;

    /** The next batch is being read ahead, since {@code now}. */
    void reading(CompletableFuture<Optional<ReadAhead>> read, long now) {
        next = read;
        since = now;
    }

    void readingAfter(CompletableFuture<Optional<ReadAhead>> read) {
        afterNext = read;
    }

    /** True while the next batch is being read ahead, or once it is read and not yet taken. */
    boolean held() {
        return next != null;
    }

    /** True while the next batch is being read ahead. */
    boolean pending() {
        return next != null && !next.isDone();
    }

    /** The next batch as read ahead, once that is done and did not fail; empty while it runs, or when none follows. */
    Optional<ReadAhead> ifRead() {
        CompletableFuture<Optional<ReadAhead>> read = next;
        return read != null && read.isDone() && !read.isCompletedExceptionally() ? read.join() : Optional.empty();
    }

    /** When the read-ahead started, in {@link System#nanoTime()}. */
    long since() {
        return since;
    }

    /** The read-ahead of the next batch, handed over to the caller (null when there is none). */
    CompletableFuture<Optional<ReadAhead>> takeNext() {
        CompletableFuture<Optional<ReadAhead>> taken = next;
        next = null;
        return taken;
    }

    /** The read-ahead of the batch after the next one, handed over to the caller (null when there is none). */
    CompletableFuture<Optional<ReadAhead>> takeAfterNext() {
        CompletableFuture<Optional<ReadAhead>> taken = afterNext;
        afterNext = null;
        return taken;
    }
}

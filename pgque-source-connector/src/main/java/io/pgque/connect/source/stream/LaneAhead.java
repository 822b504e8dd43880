/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.client.ReadAhead;
import io.pgque.connect.source.reader.AheadReader;
import io.pgque.connect.source.reader.LostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reading ahead for one lane, and all it holds: the slot's {@link AheadReader}, the read of its
 * next batch and of the one after, and giving back what will not be opened (a read into a cursor
 * holds a connection). Every read ahead of a lane is started, taken, opened or dropped here;
 * {@link Pipeline} decides when. A lane whose reader reads nothing ahead has one that holds
 * nothing. Touched on the poll thread only; the reads complete on the read-ahead thread.
 */
final class LaneAhead {

    private static final Logger log = LoggerFactory.getLogger(LaneAhead.class);

    /** Null when the reader reads nothing ahead. */
    private final AheadReader reader;
    /** The next batch, being read ahead or read and not yet taken; null when none is. */
    private CompletableFuture<Optional<ReadAhead>> next;
    private long since;
    /** The batch after {@link #next}, read once that one is read; null when none is. */
    private CompletableFuture<Optional<ReadAhead>> afterNext;

    LaneAhead(AheadReader reader) {
        this.reader = reader;
    }

    /** Whether the lane's reader reads ahead at all. */
    boolean reads() {
        return reader != null;
    }

    /** Most events a batch read ahead without a cursor holds. */
    int pageEvents() {
        return reader.pageEvents();
    }

    /**
     * Starts reading the batch after open batch {@code batchId} (whole into a cursor when
     * {@code large}), or takes over {@code readingAfter}, the read of it that the batch before
     * started, unless that found nothing; and once the next batch is read, the one after it.
     * {@code whenDone} runs when the next batch's read ends. Where no connection is spare for a
     * cursor, nothing is read ahead.
     */
    void start(long batchId, boolean large, CompletableFuture<Optional<ReadAhead>> readingAfter, Runnable whenDone) {
        CompletableFuture<Optional<ReadAhead>> read = readingAfter == null ? reader.start(batchId, large)
                : readingAfter.handle((found, failure) -> failure == null && found.isPresent()
                        ? CompletableFuture.completedFuture(found)
                        : reader.startOrNone(batchId, large)).thenCompose(f -> f);
        if (read != null) {
            next = read;
            since = System.nanoTime();
            afterNext = reader.after(batchId, read);
            read.whenComplete((found, failure) -> whenDone.run());
        }
    }

    /** Gives back a read ahead that will not be opened, now or once it is done. */
    void discard(CompletableFuture<Optional<ReadAhead>> read) {
        if (reader != null) {
            reader.discard(read);
        }
    }

    /** Gives back the reads of the next batches: the batch they follow will not be acked by this lane. */
    void drop() {
        discard(takeNext());
        discard(takeAfterNext());
    }

    /** True while the next batch is being read ahead, or once it is read and not yet taken. */
    boolean held() {
        return next != null;
    }

    /** True while the next batch is being read ahead. */
    boolean pending() {
        return next != null && !next.isDone();
    }

    /** When the read of the next batch started, in {@link System#nanoTime()}. */
    long since() {
        return since;
    }

    /** The next batch as read ahead, once that is done and did not fail; empty while it runs, or when none follows. */
    Optional<ReadAhead> ifRead() {
        CompletableFuture<Optional<ReadAhead>> read = next;
        return read != null && read.isDone() && !read.isCompletedExceptionally() ? read.join() : Optional.empty();
    }

    /**
     * The next batch read ahead, taken to be opened: empty when none was read, none follows, or
     * the read failed (as any read-ahead's failure, not reported: the usual receive follows and
     * meets a lasting fault). Waits for a read still running.
     */
    Optional<ReadAhead> take(Object after, String readerName) {
        CompletableFuture<Optional<ReadAhead>> read = takeNext();
        if (read == null) {
            return Optional.empty();
        }
        try {
            return read.join();
        } catch (CompletionException e) {
            log.debug("Reading ahead of {} on {} failed; receiving the next batch the usual way: {}", after,
                    readerName, e.getCause().getMessage());
            return Optional.empty();
        }
    }

    /** The next batch, read (see {@link #ifRead}), taken to go out before the batch it follows is acked. */
    ReadAhead takeRead() {
        return takeNext().join().orElseThrow();
    }

    /** The read of the batch after the next one, handed over to the caller (null when there is none). */
    CompletableFuture<Optional<ReadAhead>> takeAfterNext() {
        CompletableFuture<Optional<ReadAhead>> taken = afterNext;
        afterNext = null;
        return taken;
    }

    private CompletableFuture<Optional<ReadAhead>> takeNext() {
        CompletableFuture<Optional<ReadAhead>> taken = next;
        next = null;
        return taken;
    }

    /**
     * The first batch of a new lease, read in the scan the stream's slots share, and opened;
     * empty where the reader reads no such scan, when it found nothing, when the read failed (not
     * reported, as above), or when the slot moved in between.
     */
    Optional<ReadAhead> openFirst(String readerName) throws LostException {
        if (reader == null) {
            return Optional.empty();
        }
        Optional<ReadAhead> first;
        try {
            first = reader.first();
        } catch (RuntimeException e) {
            log.debug("Reading the first batch of {} in its stream's shared scan failed; receiving it the usual way",
                    readerName, e);
            return Optional.empty();
        }
        if (first.isEmpty()) {
            return first;
        }
        boolean opened;
        try {
            opened = reader.open(first.get());
        } catch (LostException | RuntimeException e) {
            reader.discard(first.get());
            throw e;
        }
        if (!opened) {
            reader.discard(first.get());
            return Optional.empty();
        }
        reader.opened(first.get());
        return first;
    }

    /**
     * Acks finished batch {@code done} and opens {@code read} after it, in one transaction. On a
     * transient failure nothing changed: {@code read} becomes the next batch again when
     * {@code keepOnFailure} (it was taken from here), and the failure is thrown.
     *
     * @return false when the slot moved otherwise in between (the engine opened nothing; the read is given back)
     * @throws LostException when the lease is gone; the read is given back
     */
    boolean ackThenOpen(long done, ReadAhead read, boolean keepOnFailure) throws LostException {
        boolean opened;
        try {
            opened = reader.ackAndOpen(done, read);
        } catch (LostException e) {
            reader.discard(read);
            throw e;
        } catch (RuntimeException e) {
            if (keepOnFailure) {
                next = CompletableFuture.completedFuture(Optional.of(read));
            }
            throw e;
        }
        if (opened) {
            reader.opened(read);
        } else {
            reader.discard(read);
        }
        return opened;
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.reader;

import io.pgque.client.ReadAhead;
import io.pgque.client.ReadAheadGroup;
import io.pgque.client.SlotConsumer;
import io.pgque.client.SlotFencedException;
import io.pgque.client.SlotNotLeasedException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;

/**
 * Reading ahead for the slots of one stream: a thread that reads a slot's
 * next batch while its current one streams, and the cursor connections that may take. Each slot
 * keeps one cursor connection for the batch it streams; the read-aheads share what is left, so a
 * batch is never kept from its cursor by batches read ahead for other slots. A batch expected to
 * fit a few chunks ({@link #pageEvents}) is read ahead in one query, without a cursor, and holds no
 * connection; that query reads the window for all of the stream's slots at once, and the next
 * slot handed the same window is served without a scan of its own ({@link ReadAheadGroup}). With
 * a {@link ReadAheadSettings#sharing}, a stream of several slots reads for the slots of the other
 * such streams too (a connector's tasks in one worker): one scan of a window per worker, not per task.
 */
public final class ReadAheads implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReadAheads.class);

    private final SlotConsumer consumer;
    /** The stream's slots, reading ahead in one scan of a window for all of them. */
    private final ReadAheadGroup group;
    private final DataSource cursors;
    private final int chunkSize;
    private final int pageChunks;
    private final Semaphore spare;
    private final ExecutorService thread;

    /**
     * @param settings its spare cursor connections, beyond one per slot (none: nothing is read
     *                 ahead with a cursor, batches that fit a page still are), and its page size
     */
    public ReadAheads(SlotConsumer consumer, List<Integer> slots, DataSource cursors, int chunkSize,
                      ReadAheadSettings settings) {
        this.pageChunks = settings.pageChunks();
        this.consumer = consumer;
        // A stream of one slot reads two batches ahead, which lets it drift from the others: it
        // scans for itself (see after()).
        this.group = settings.sharing() != null && slots.size() > 1
                ? consumer.readAheadGroup(slots, settings.sharing()) : consumer.readAheadGroup(slots);
        this.cursors = cursors;
        this.chunkSize = chunkSize;
        this.spare = new Semaphore(Math.max(settings.spareCursors(), 0));
        // Named by worker (connector, task) and N, so a thread dump tells which task and which slot
        // set it reads for: a resize gives the task a new one.
        String name = "pgque-read-ahead-" + consumer.workerId() + "-n" + consumer.slots();
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Slot {@code slot}'s view of this read-ahead. */
    AheadReader forSlot(int slot) {
        return new AheadReader() {
            @Override
            public CompletableFuture<Optional<ReadAhead>> start(long batchId, boolean large) {
                return ReadAheads.this.start(slot, batchId, large);
            }

            @Override
            public CompletableFuture<Optional<ReadAhead>> after(long batchId,
                                                                CompletableFuture<Optional<ReadAhead>> next) {
                return ReadAheads.this.after(slot, batchId, next);
            }

            @Override
            public Optional<ReadAhead> first() {
                return group.sharesScans() ? group.readFirstPage(slot, pageEvents()) : Optional.empty();
            }

            @Override
            public boolean open(ReadAhead first) throws LostException {
                try {
                    return consumer.slot(slot).open(first);
                } catch (SlotFencedException | SlotNotLeasedException e) {
                    throw new LostException(e);
                }
            }

            @Override
            public int pageEvents() {
                return ReadAheads.this.pageEvents();
            }

            @Override
            public boolean ackAndOpen(long done, ReadAhead ahead) throws LostException {
                try {
                    return consumer.slot(slot).afterAck(done).open(ahead);
                } catch (SlotFencedException | SlotNotLeasedException e) {
                    throw new LostException(e);
                }
            }

            @Override
            public void opened(ReadAhead read) {
                ReadAheads.this.opened(read);
            }

            @Override
            public void discard(ReadAhead read) {
                ReadAheads.this.discard(read);
            }
        };
    }

    /**
     * Starts reading the batch after open batch {@code batchId} of {@code slot}: whole into a
     * cursor when it is expected to be larger than {@link #pageEvents} ({@code large}; one scan
     * of its window, a spare connection held until it is opened), else its first
     * {@link #pageEvents} in one query, holding no connection. Null when a cursor is wanted and no
     * connection is spare.
     */
    private CompletableFuture<Optional<ReadAhead>> start(int slot, long batchId, boolean large) {
        int pageEvents = pageEvents();
        if (large && !spare.tryAcquire()) {
            return null;
        }
        try {
            return CompletableFuture.supplyAsync(() -> large ? readWhole(slot, batchId)
                    : group.readAheadPage(slot, batchId, pageEvents), thread);
        } catch (RejectedExecutionException closing) {
            if (large) {
                spare.release();
            }
            return null;
        }
    }

    /**
     * Once {@code next} (the read-ahead of the batch after open batch {@code batchId}) is read,
     * reads the batch after that one too, on the same thread, so that a slot streaming batches of
     * a chunk or more finds each batch read before it needs it (one read-ahead per batch left too
     * little time: read during the batch before it, it still ran for most of that batch's sending,
     * and a late one left Kafka idle at the boundary). Only a batch read in one page is read on
     * from; empty when {@code next} is not such a batch or nothing follows it yet, and with an
     * engine before 0.3.4. Null for a stream of several slots, which reads one ahead only: its
     * slots share each window's scan ({@link ReadAheadGroup}) while they stand at the same ticks,
     * and reading two ahead let them drift apart, so that each slot scanned for itself.
     */
    private CompletableFuture<Optional<ReadAhead>> after(int slot, long batchId,
                                                         CompletableFuture<Optional<ReadAhead>> next) {
        if (group.slots().size() > 1) {
            return null;
        }
        int pageEvents = pageEvents();
        return next.thenApplyAsync(read -> read.filter(this::readsOnFrom)
                .flatMap(previous -> group.readAheadPageAfter(slot, batchId, previous, pageEvents)), thread);
    }

    /** A batch read ahead in one page, of a chunk or more: the slot is behind, and another batch likely follows. */
    private boolean readsOnFrom(ReadAhead read) {
        return read.batch().rest() == null && !read.batch().first().full()
                && read.batch().first().messages().size() >= chunkSize;
    }

    /** Most events a batch read ahead without a cursor holds; a larger one comes as a full page of this many. */
    private int pageEvents() {
        return (int) Math.min((long) chunkSize * pageChunks, Integer.MAX_VALUE - 1);
    }

    private Optional<ReadAhead> readWhole(int slot, long batchId) {
        Optional<ReadAhead> read;
        try {
            read = consumer.slot(slot).readAhead(cursors, batchId, chunkSize);
        } catch (RuntimeException e) {
            spare.release();
            throw e;
        }
        if (read.isEmpty() || read.get().batch().rest() == null) {
            spare.release();
        }
        return read;
    }

    /** The batch read ahead was opened: its cursor is now the slot's own, and no longer counts here. */
    private void opened(ReadAhead read) {
        if (read.batch().rest() != null) {
            spare.release();
        }
    }

    /** Drops a batch read ahead that will not be opened (call once per read-ahead). */
    private void discard(ReadAhead read) {
        if (read.batch().rest() != null) {
            read.discard();
            spare.release();
        }
    }

    /** Stops the thread; a read-ahead still running finishes and is dropped by whoever holds it. */
    @Override
    public void close() {
        thread.shutdown();
        log.debug("{}: {} scans read ahead for several slots, {} batches read ahead from them without a scan",
                group, group.scanned(), group.served());
        group.clear();
    }
}

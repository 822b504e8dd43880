/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.slot;

import io.pgque.client.BatchCursor;
import io.pgque.client.Message;
import io.pgque.client.ReadAhead;
import io.pgque.connect.source.record.DeliveryTicket;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One batch on its way to Kafka (a slot's, or a cooperative worker's), handed over in chunks of at most {@code chunkSize}
 * records so that the task never holds the whole batch (one built while the ticker stood still
 * can hold millions of events). Records count down as Kafka acknowledges them, on the
 * producer's thread; the batch is delivered once its last chunk was taken and every record of
 * every chunk acknowledged, and only then is it acked in PostgreSQL. The next chunk is read
 * only while at most one chunk is unacknowledged, so a slot holds at most two chunks of
 * records: the bound on a task's memory, whatever the batch's size.
 *
 * <p>Only the counter and the completion flag are shared between threads; the read position
 * and the cursor belong to the poll thread. A wake-up goes to the poll thread when the batch is
 * delivered and when room for the next chunk appears.
 */
public final class StreamedBatch implements DeliveryTicket {

    /** No position in the batch: nothing of it is known to be in Kafka. */
    static final long NOTHING = Long.MIN_VALUE;

    private final long batchId;
    private final long epoch;
    private final int chunkSize;
    private final AtomicLong outstanding = new AtomicLong();
    private volatile boolean complete;
    private final Consumer<StreamedBatch> wake;
    private long received;
    private long sent;
    private long readThrough = NOTHING;
    /** Exactly-once: Kafka holds this batch up to this event already (committed under an earlier lease). */
    private long heldThrough = NOTHING;
    private BatchCursor cursor;
    /** Events read but not yet taken (a first page larger than a chunk), from {@link #bufferedAt}; null when none. */
    private List<Message> buffered;
    private int bufferedAt;
    /** Whether the batch has events beyond the buffered ones, to be read through a cursor. */
    private boolean moreAfterBuffer;
    /** The slot's next batch, being read ahead while this one streams; null when none is. */
    private CompletableFuture<Optional<ReadAhead>> ahead;
    private long aheadSince;
    /** The batch after {@link #ahead}, read ahead once that one is read; null when none is. */
    private CompletableFuture<Optional<ReadAhead>> afterAhead;

    /**
     * @param epoch     the lease epoch it was read under (0 where there is no lease)
     * @param chunkSize most records per chunk
     * @param wake      tells the poll thread there is something to do (any thread; must not block)
     */
    public StreamedBatch(long batchId, long epoch, int chunkSize, Consumer<StreamedBatch> wake) {
        this.batchId = batchId;
        this.epoch = epoch;
        this.chunkSize = chunkSize;
        this.wake = wake;
    }

    @Override
    public void delivered() {
        long left = outstanding.decrementAndGet();
        // Room for one more chunk: of this batch, or (once it is complete) of the one read ahead.
        if (left == 0 ? complete : left == chunkSize) {
            wake.accept(this);
        }
    }

    /** Events of the batch Kafka held before it was received (exactly-once resume): not sent again. */
    public void heldInKafkaThrough(long eventId) {
        heldThrough = eventId;
    }

    public boolean resumed() {
        return heldThrough != NOTHING;
    }

    /**
     * Takes a chunk read from the database: moves the read position past it and returns the
     * events to send (those Kafka does not hold yet), each counted as outstanding until
     * acknowledged. Call before creating their records: an event dead-lettered on the way counts
     * itself down at once.
     */
    public List<Message> take(List<Message> chunk) {
        if (chunk.isEmpty()) {
            return chunk;
        }
        received += chunk.size();
        readThrough = chunk.get(chunk.size() - 1).msgId();
        List<Message> toSend = heldThrough == NOTHING || chunk.get(0).msgId() > heldThrough ? chunk
                : chunk.stream().filter(m -> m.msgId() > heldThrough).toList();
        sent += toSend.size();
        outstanding.addAndGet(toSend.size());
        return toSend;
    }

    /**
     * Keeps events read beyond the first chunk (a batch read ahead in one query of several
     * chunks) to be handed over as the next chunks, before any cursor is opened.
     *
     * @param more whether the batch has more events after these
     */
    public void buffer(List<Message> rest, boolean more) {
        buffered = rest.isEmpty() ? null : rest;
        bufferedAt = 0;
        moreAfterBuffer = more;
    }

    /** The next at most {@code max} buffered events, or null when none are left. */
    public List<Message> takeBuffered(int max) {
        if (buffered == null) {
            return null;
        }
        List<Message> chunk = buffered.subList(bufferedAt, Math.min(bufferedAt + max, buffered.size()));
        bufferedAt += chunk.size();
        if (bufferedAt == buffered.size()) {
            buffered = null;
        }
        return chunk;
    }

    /** True while events read ahead beyond the chunks taken wait to be handed over. */
    public boolean hasBuffered() {
        return buffered != null;
    }

    /** True when nothing is buffered and no event follows the buffered ones: the batch is read. */
    public boolean readToEnd() {
        return buffered == null && !moreAfterBuffer;
    }

    /** The batch's last chunk was taken: it is delivered when the last outstanding record is. */
    public void lastChunkTaken() {
        closeCursor();
        complete = true;
        if (outstanding.get() == 0) {
            wake.accept(this);
        }
    }

    /** True once every chunk was taken and Kafka has every record of them. */
    public boolean isDelivered() {
        return complete && outstanding.get() <= 0;
    }

    /** At most one chunk of the batch is still waiting on Kafka. */
    public boolean atMostAChunkOutstanding() {
        return outstanding.get() <= chunkSize;
    }

    /** True while records of the batch handed to Connect wait for Kafka's acknowledgement. */
    public boolean anyOutstanding() {
        return outstanding.get() > 0;
    }

    /** More of the batch is to be read, and at most one chunk is still waiting on Kafka. */
    public boolean readyForMore() {
        return !complete && atMostAChunkOutstanding();
    }

    public boolean complete() {
        return complete;
    }

    /** Where the rest of the batch starts: after the last event read, or after what Kafka holds. */
    public long restAfter() {
        return Math.max(readThrough, heldThrough);
    }

    public BatchCursor cursor() {
        return cursor;
    }

    public void cursorOpened(BatchCursor opened) {
        cursor = opened;
    }

    /** Gives the cursor's connection back; the next read opens a new cursor after {@link #restAfter()}. */
    public void closeCursor() {
        if (cursor != null) {
            BatchCursor open = cursor;
            cursor = null;
            open.close();
        }
    }

    /** The slot's next batch is being read ahead, since {@code now} (see {@link SlotPoller}). */
    public void readingAhead(CompletableFuture<Optional<ReadAhead>> next, long now) {
        ahead = next;
        aheadSince = now;
    }

    /** The batch after the slot's next one is being read ahead too (see {@link SlotPoller}). */
    public void readingAfterAhead(CompletableFuture<Optional<ReadAhead>> afterNext) {
        afterAhead = afterNext;
    }

    /** The read-ahead of the batch after the next one, handed over to the caller (null when there is none). */
    public CompletableFuture<Optional<ReadAhead>> takeAfterAhead() {
        CompletableFuture<Optional<ReadAhead>> taken = afterAhead;
        afterAhead = null;
        return taken;
    }

    /** True while the next batch is being read ahead. */
    public boolean aheadPending() {
        return ahead != null && !ahead.isDone();
    }

    /** The next batch as read ahead, once that is done and did not fail; empty while it runs, or when none follows. */
    public Optional<ReadAhead> aheadIfRead() {
        CompletableFuture<Optional<ReadAhead>> read = ahead;
        return read != null && read.isDone() && !read.isCompletedExceptionally() ? read.join() : Optional.empty();
    }

    /** When the read-ahead started, in {@link System#nanoTime()}. */
    public long aheadSince() {
        return aheadSince;
    }

    /** The read-ahead, handed over to the caller (null when there is none). */
    public CompletableFuture<Optional<ReadAhead>> takeAhead() {
        CompletableFuture<Optional<ReadAhead>> taken = ahead;
        ahead = null;
        return taken;
    }

    public long batchId() {
        return batchId;
    }

    public long epoch() {
        return epoch;
    }

    /** Events of the batch read so far (all of them once complete). */
    public long size() {
        return received;
    }

    /** Records handed to Connect so far. */
    public long sent() {
        return sent;
    }

    @Override
    public String toString() {
        return "batch " + batchId + " (" + received + (complete ? "" : "+") + " events)";
    }
}

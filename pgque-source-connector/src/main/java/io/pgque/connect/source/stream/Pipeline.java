/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.client.BatchPage;
import io.pgque.client.ReadAhead;
import io.pgque.connect.source.metrics.StreamEvents;
import io.pgque.connect.source.reader.AheadReader;
import io.pgque.connect.source.reader.LostException;
import io.pgque.connect.source.record.ReaderId;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reading ahead and sending ahead, for readers that read ahead (slots). Reading is what keeps a
 * slot behind its queue busy in PostgreSQL: a batch's first read scans its whole window. So a slot
 * reads its next batch ahead while its current one streams (the events between two ticks are
 * fixed once the later tick exists), and opens it as read when the current one is acked.
 *
 * <p>Without Kafka transactions a slot also <em>sends ahead</em>: once its current batch is all
 * handed over and at most a chunk of it waits on Kafka, the first chunk of the batch read ahead
 * goes out too, before the current one is acked. The current batch is still acked only after
 * Kafka acknowledged its every record, and the next one opened in that same transaction; its
 * records simply no longer wait for that round trip, so Kafka is not left idle at every batch
 * boundary. They follow the current batch's in the producer, so per-key order holds; if the open
 * fails or the lease is lost, they are a prefix of what the slot delivers again.
 */
final class Pipeline {

    private static final Logger log = LoggerFactory.getLogger(Pipeline.class);

    private final Chunks chunks;
    private final StreamEvents events;
    private final PollLoop loop;
    private final boolean sendAhead;
    private final long renewEveryNanos;

    /**
     * @param sendAhead       whether a batch read ahead may go out before the one before it is
     *                        acked (never with transactions, nor where exactly-once resumes)
     * @param renewEveryNanos how often a lease is renewed; a read-ahead running longer is given up on
     */
    Pipeline(Chunks chunks, StreamEvents events, PollLoop loop, boolean sendAhead, long renewEveryNanos) {
        this.chunks = chunks;
        this.events = events;
        this.loop = loop;
        this.sendAhead = sendAhead;
        this.renewEveryNanos = renewEveryNanos;
    }

    /**
     * Reads the lane's next batch ahead while its just opened batch (first page {@code first})
     * streams, so that the scan of its window overlaps sending this one. When nothing follows the
     * batch yet this costs one short query, so it is done only after batches of a chunk or more.
     * Where the batch before read its next but one ({@code readingAfter}), that read is the next
     * batch's; if it found nothing (it ran after this batch was opened, say), the next batch is read now.
     */
    void startReadAhead(Lane lane, BatchPage first, CompletableFuture<Optional<ReadAhead>> readingAfter) {
        AheadReader ahead = lane.ahead();
        if (ahead == null || loop.stopping()) {
            return;
        }
        if (!first.full() && first.messages().size() < chunks.chunkSize()) {
            // A batch smaller than a chunk: the slot keeps up, and its next batch is read with the
            // ack in one round trip anyway. Reading ahead would only cost a query that nearly
            // always finds no next tick yet, and at a short ticker interval those queries of
            // every slot land just when the slots' new batches are read and sent. A slot that
            // falls behind gets batches of its catch-up window, larger than a chunk, and reads
            // ahead again.
            ahead.discard(readingAfter);
            return;
        }
        // The next batch is likely about as large as this one, or as the last one when this one's
        // size is not known yet (only its first page is read): one larger than a read-ahead page
        // is read into a cursor, in one scan, rather than as a page and a second scan for the rest.
        boolean large = first.full() && (first.messages().size() >= ahead.pageEvents()
                || lane.lastBatchEvents() > ahead.pageEvents());
        long batchId = lane.batch().batchId();
        CompletableFuture<Optional<ReadAhead>> next = readingAfter == null ? ahead.start(batchId, large)
                : readingAfter.handle((read, failure) -> failure == null && read.isPresent()
                        ? CompletableFuture.completedFuture(read)
                        : ahead.startOrNone(batchId, large)).thenCompose(f -> f);
        if (next != null) {
            lane.next().reading(next, System.nanoTime());
            lane.next().readingAfter(ahead.after(batchId, next));
            next.whenComplete((read, failure) -> loop.wake());
        }
    }

    /** Drops the reads ahead of the lane's next batches (the batch they follow will not be acked by us). */
    void dropAhead(Lane lane) {
        if (lane.ahead() != null) {
            lane.ahead().discard(lane.next().takeNext());
            lane.ahead().discard(lane.next().takeAfterNext());
        }
    }

    /** The batch read ahead of the lane's delivered one, once read: empty when none is, or reading it failed. */
    Optional<ReadAhead> takeReadAhead(Lane lane) {
        CompletableFuture<Optional<ReadAhead>> ahead = lane.next().takeNext();
        if (ahead == null) {
            return Optional.empty();
        }
        try {
            return ahead.join();
        } catch (CompletionException e) {
            log.debug("Reading ahead of {} on {} failed; receiving the next batch the usual way: {}",
                    lane.batch(), lane.reader().id().logName(), e.getCause().getMessage());
            return Optional.empty();
        }
    }

    /**
     * Acks the lane's delivered batch {@code done} and opens {@code ahead} after it, in one
     * transaction. Leaves the lane resting (its batch finished); on a transient failure changes
     * nothing (the read-ahead is put back for the next pass) and throws.
     *
     * @return false when the slot moved otherwise in between (the engine then opened nothing)
     * @throws LostException when the lease is gone; the read-ahead is dropped
     */
    boolean ackThenOpen(Lane lane, StreamedBatch done, ReadAhead ahead, long now) throws LostException {
        boolean opened;
        try {
            opened = lane.ahead().ackAndOpen(done.batchId(), ahead);
        } catch (LostException e) {
            lane.ahead().discard(ahead);
            throw e;
        } catch (RuntimeException e) {
            // Nothing changed; the next pass tries again with the same read-ahead.
            if (lane.sentAhead() == null) {
                lane.next().reading(CompletableFuture.completedFuture(Optional.of(ahead)), lane.next().since());
            }
            throw e;
        }
        ReaderId reader = lane.reader().id();
        lane.batchFinished(now);
        events.batchAcked(reader, Chunks.clamp(done.size()));
        if (!opened) {
            lane.ahead().discard(ahead);
            log.info("Batch {} read ahead on {} could not be opened (the slot moved in between); receiving the "
                    + "usual way", ahead.batchId(), reader.logName());
            return false;
        }
        lane.ahead().opened(ahead);
        events.batchReadAhead(reader);
        if (ahead.shared()) {
            events.batchReadAheadWithoutScan(reader);
        }
        return true;
    }

    /**
     * Acks the lane's delivered batch and opens the one sent ahead after it, in one transaction.
     * Leaves the lane streaming the batch sent ahead; resting when the engine would not open it
     * (what went out of it comes again). A transient failure changes nothing: the next pass tries
     * again.
     *
     * @throws LostException when the lease is gone, and with it the batch sent ahead
     */
    void ackAndOpenSentAhead(Lane lane, long now) throws LostException {
        SentAhead next = lane.sentAhead();
        boolean opened = ackThenOpen(lane, lane.batch(), next.read(), now);
        lane.takeSentAhead();
        lane.renewAt(now + renewEveryNanos);
        if (opened) {
            CompletableFuture<Optional<ReadAhead>> readingAfter = lane.next().takeAfterNext();
            lane.batchStarted(next.batch(), next.larger(), Lane.TICKS_UNKNOWN);
            startReadAhead(lane, next.read().batch().first(), readingAfter);
        }
    }

    /**
     * Whether the first chunk of the lane's next batch may go out now: the current batch is all
     * handed over, at most a chunk of it waits on Kafka, and the next one was read ahead in one
     * query (one read into a cursor is read through that cursor once it is open, as the rest of a
     * batch always is).
     */
    boolean canSendAhead(Lane lane) {
        StreamedBatch current = lane.batch();
        if (!sendAhead || current == null || lane.sentAhead() != null || !current.complete()
                || !current.atMostAChunkOutstanding() || lane.needsDeliveryCheck() || loop.stopping()) {
            return false;
        }
        Optional<ReadAhead> next = lane.next().ifRead();
        return next.isPresent() && next.get().batch().rest() == null;
    }

    /** Hands over the first chunk of the batch read ahead after the lane's current one, which stays unacked. */
    List<SourceRecord> sendAhead(Lane lane) {
        ReadAhead read = lane.next().takeNext().join().orElseThrow();
        Chunks.Opening next = chunks.opening(lane, read.batch());
        lane.sendingAhead(new SentAhead(next.batch(), read, next.more()));
        events.batchSentAhead(lane.reader().id());
        return chunks.emit(lane, next.batch(), next.first(), !next.more());
    }
}

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
 *
 * <p>This class decides when; each lane's {@link LaneAhead} holds the reads, and the lane's state
 * changes only as {@link Steps} reports what was done.
 */
final class Pipeline {

    private static final Logger log = LoggerFactory.getLogger(Pipeline.class);

    private final Chunks chunks;
    private final StreamEvents events;
    private final PollLoop loop;
    private final boolean sendAhead;

    /**
     * @param sendAhead whether a batch read ahead may go out before the one before it is acked
     *                  (never with transactions, nor where exactly-once resumes)
     */
    Pipeline(Chunks chunks, StreamEvents events, PollLoop loop, boolean sendAhead) {
        this.chunks = chunks;
        this.events = events;
        this.loop = loop;
        this.sendAhead = sendAhead;
    }

    /**
     * Reads the lane's next batch ahead while its just opened batch (first page {@code first})
     * streams, so that the scan of its window overlaps sending this one. When nothing follows the
     * batch yet this costs one short query, so it is done only after batches of a chunk or more.
     * Where the batch before read its next but one ({@code readingAfter}), that read is the next
     * batch's; if it found nothing (it ran after this batch was opened, say), the next batch is read now.
     */
    void startReadAhead(Lane lane, BatchPage first, CompletableFuture<Optional<ReadAhead>> readingAfter) {
        LaneAhead ahead = lane.ahead();
        if (!ahead.reads() || loop.stopping()) {
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
        ahead.start(lane.batch().batchId(), large, readingAfter, loop::wake);
    }

    /**
     * Acks the lane's delivered batch {@code done} and opens {@code ahead} after it, in one
     * transaction, and counts it; the caller applies the change to the lane. On a transient
     * failure changes nothing (a read-ahead taken from the lane, {@code taken}, is put back for
     * the next pass) and throws.
     *
     * @return false when the slot moved otherwise in between (the engine then opened nothing)
     * @throws LostException when the lease is gone; the read-ahead is dropped
     */
    boolean ackThenOpen(Lane lane, StreamedBatch done, ReadAhead ahead, boolean taken) throws LostException {
        boolean opened = lane.ahead().ackThenOpen(done.batchId(), ahead, taken);
        ReaderId reader = lane.reader().id();
        events.batchAcked(reader, Chunks.clamp(done.size()));
        if (!opened) {
            log.info("Batch {} read ahead on {} could not be opened (the slot moved in between); receiving the "
                    + "usual way", ahead.batchId(), reader.logName());
            return false;
        }
        readAheadOpened(reader, ahead);
        return true;
    }

    /** Counts a batch read ahead and opened. */
    void readAheadOpened(ReaderId reader, ReadAhead read) {
        events.batchReadAhead(reader);
        if (read.shared()) {
            events.batchReadAheadWithoutScan(reader);
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
        Optional<ReadAhead> next = lane.ahead().ifRead();
        return next.isPresent() && next.get().batch().rest() == null;
    }

    /**
     * The first chunk of the batch read ahead after the lane's current one, which stays unacked,
     * and the batch it goes out of, for the lane to hold as sent ahead.
     */
    SendingAhead sendAhead(Lane lane) {
        ReadAhead read = lane.ahead().takeRead();
        Chunks.Opening next = chunks.opening(lane, read.batch());
        events.batchSentAhead(lane.reader().id());
        return new SendingAhead(new SentAhead(next.batch(), read, next.more()),
                chunks.emit(lane, next.batch(), next.first(), !next.more()));
    }

    /** What {@link #sendAhead} hands over: the batch now sent ahead, and its first chunk's records (null: none). */
    record SendingAhead(SentAhead sent, List<SourceRecord> records) {
    }
}

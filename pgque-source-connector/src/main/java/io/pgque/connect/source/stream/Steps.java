/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.reader.RestOfBatch;
import io.pgque.client.Message;
import io.pgque.client.OpenedBatch;
import io.pgque.client.ReadAhead;
import io.pgque.connect.source.metrics.StreamEvents;
import io.pgque.connect.source.reader.BatchReader;
import io.pgque.connect.source.reader.LostException;
import io.pgque.connect.source.record.ReaderId;
import io.pgque.connect.source.stream.LaneChange.AckAfterTick;
import io.pgque.connect.source.stream.LaneChange.Acked;
import io.pgque.connect.source.stream.LaneChange.Claimed;
import io.pgque.connect.source.stream.LaneChange.FoundNothing;
import io.pgque.connect.source.stream.LaneChange.Lost;
import io.pgque.connect.source.stream.LaneChange.NotClaimed;
import io.pgque.connect.source.stream.LaneChange.Renewed;
import io.pgque.connect.source.stream.LaneChange.SentAheadOpened;
import io.pgque.connect.source.stream.LaneChange.SentAheadOut;
import io.pgque.connect.source.stream.LaneChange.Started;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What one reader does on its turn, by its {@link ReaderState}: claim and receive, read on, ack
 * and open the next batch, send ahead; and on the side, keep its right to read alive, ack. Each
 * step makes its database calls, then reports what they did to the lane as a {@link LaneChange}
 * (the lane's table checks it may come from where the lane stands); {@link Pipeline} and
 * {@link Chunks} only answer. A lane changes only once a call succeeded, so a transient failure
 * leaves it as it was and the next pass does the same work again; a lost lease or batch drops
 * what was in flight.
 */
final class Steps {

    private static final Logger log = LoggerFactory.getLogger(Steps.class);

    private final Chunks chunks;
    private final Pipeline pipeline;
    private final StreamEvents events;
    private final PollLoop loop;
    private final long renewEveryNanos;
    /** The ticks heard before the current step's database call (see {@link Lane#ticksBeforeOpen}). */
    private long ticksBeforeCall = Lane.TICKS_UNKNOWN;

    Steps(Chunks chunks, Pipeline pipeline, StreamEvents events, PollLoop loop, long renewEveryNanos) {
        this.chunks = chunks;
        this.pipeline = pipeline;
        this.events = events;
        this.loop = loop;
        this.renewEveryNanos = renewEveryNanos;
    }

    /** What the lane has to hand over now: its next batch after acking the delivered one, its next chunk, or a first read. */
    List<SourceRecord> next(Lane lane, long now, boolean tick) {
        ticksBeforeCall = loop.ticksHeard();
        return switch (lane.state()) {
            case UNLEASED, RESTING -> now >= lane.nextAttemptNanos() || tick && lane.leased() ? receive(lane) : null;
            case DELIVERED -> ackWaitsForTick(lane, now) ? null : ackAndReceive(lane, now);
            case AWAITING_READ_AHEAD -> ackAndReceive(lane, now);
            case STREAMING -> readOn(lane);
            case BACK_PRESSURED, AWAITING_KAFKA, SENT_AHEAD -> pipeline.canSendAhead(lane) ? sendAhead(lane) : null;
        };
    }

    /**
     * Whether the lane has more for an open Kafka transaction: chunks read ahead in memory, or one
     * more chunk of the batch it streams (Kafka acknowledges nothing before the commit, so
     * {@link StreamedBatch#readyForMore} stops at two chunks).
     */
    static boolean hasMoreForTransaction(Lane lane) {
        StreamedBatch batch = lane.batch();
        return batch != null && (batch.hasBuffered() || batch.readyForMore());
    }

    /**
     * Whether the lane's delivered batch is better acked with its next batch's receive, on the
     * next tick: the slot keeps up (its batch fit a chunk, nothing was read or sent ahead), ticks
     * are heard, and none was heard since the batch was opened, so no next batch exists yet. An
     * ack alone now and a receive on the tick would be two transactions where one does, and an ack
     * with a receive now would find nothing. A tick, or at the latest twice the poll interval
     * (never past the lease's renewal), ends the wait. Marks the lane as waiting when so.
     */
    boolean ackWaitsForTick(Lane lane, long now) {
        if (lane.ackWaitsForTick()) {
            if (loop.ticksHeard() == lane.ticksBeforeOpen() && now < lane.ackDeadlineNanos() && loop.hearsTicks()
                    && !loop.stopping()) {
                return true;
            }
            return false;
        }
        StreamedBatch batch = lane.batch();
        if (lane.ticksBeforeOpen() == Lane.TICKS_UNKNOWN || loop.ticksHeard() != lane.ticksBeforeOpen()
                || !lane.reader().waitsForTicks() || !loop.hearsTicks() || loop.stopping() || lane.behind()
                || lane.sentAhead() != null || lane.ahead().held() || batch == null
                || batch.size() >= chunks.chunkSize()) {
            return false;
        }
        long deadline = Math.min(now + 2 * loop.restNanos(), lane.nextRenewalNanos());
        if (now >= deadline) {
            return false;
        }
        lane.apply(new AckAfterTick(deadline));
        return true;
    }

    /** Whether the lane has chunks read ahead in memory. */
    static boolean hasBuffered(Lane lane) {
        return lane.batch() != null && lane.batch().hasBuffered();
    }

    List<SourceRecord> receive(Lane lane) {
        if (!lane.leased() && !claim(lane)) {
            lane.apply(new NotClaimed(System.nanoTime() + loop.restNanos()));
            return null;
        }
        Optional<OpenedBatch> received;
        try {
            // A new lease's first batch may come from the scan the stream's slots share.
            Optional<ReadAhead> first = lane.firstOfLease()
                    ? lane.ahead().openFirst(lane.reader().id().logName()) : Optional.empty();
            first.ifPresent(read -> pipeline.readAheadOpened(lane.reader().id(), read));
            received = first.isPresent() ? Optional.of(first.get().batch())
                    : lane.reader().open(lane.behind(), chunks.chunkSize());
        } catch (LostException e) {
            lose(lane, e);
            return null;
        }
        return emit(lane, received, System.nanoTime(), null);
    }

    /**
     * Acks the lane's delivered batch and, in the same transaction, reads its next one: the batch
     * read ahead when there is one, else (a reader that is behind) whole into a cursor in one scan
     * of its window, or a first page (one round trip, and a second scan only if the page is full).
     */
    private List<SourceRecord> ackAndReceive(Lane lane, long now) {
        StreamedBatch done = lane.batch();
        if (lane.sentAhead() != null) {
            try {
                ackSentAhead(lane, now);
            } catch (LostException e) {
                lose(lane, e);
                return null;
            }
            return lane.batch() == null ? receive(lane) : lane.batch().readyForMore() ? readOn(lane) : null;
        }
        LaneAhead ahead = lane.ahead();
        if (ahead.pending()) {
            if (now - ahead.since() < renewEveryNanos) {
                return null; // the read-ahead is nearly always the sooner way on; its end wakes the poll
            }
            log.warn("Reading ahead of {} on {} has taken over {} ms; receiving the next batch the usual way", done,
                    lane.reader().id().logName(), renewEveryNanos / 1_000_000);
            ahead.drop();
        }
        Optional<ReadAhead> read = ahead.take(done, lane.reader().id().logName());
        if (read.isPresent()) {
            return ackAndOpen(lane, done, read.get(), now);
        }
        Optional<OpenedBatch> received;
        try {
            received = lane.reader().ackAndOpen(done.batchId(), lane.behind(), chunks.chunkSize());
        } catch (LostException e) {
            lose(lane, e);
            return null;
        }
        lane.apply(new Acked(now, now + renewEveryNanos));
        events.batchAcked(lane.reader().id(), Chunks.clamp(done.size()));
        return emit(lane, received, System.nanoTime(), null);
    }

    /** Acks the delivered batch and opens the one read ahead; when the slot moved otherwise in between, receives the usual way. */
    private List<SourceRecord> ackAndOpen(Lane lane, StreamedBatch done, ReadAhead read, long now) {
        boolean opened;
        try {
            opened = pipeline.ackThenOpen(lane, done, read, true);
        } catch (LostException e) {
            lose(lane, e);
            return null;
        }
        CompletableFuture<Optional<ReadAhead>> readingAfter = lane.ahead().takeAfterNext();
        lane.apply(new Acked(now, now + renewEveryNanos));
        if (!opened) {
            lane.ahead().discard(readingAfter);
            return receive(lane);
        }
        return emit(lane, Optional.of(read.batch()), System.nanoTime(), readingAfter);
    }

    /**
     * Acks the lane's delivered batch and opens the one sent ahead after it, in one transaction:
     * the lane then streams the batch sent ahead, or rests when the engine would not open it (what
     * went out of it comes again). A transient failure changes nothing: the next pass tries again.
     *
     * @throws LostException when the lease is gone, and with it the batch sent ahead
     */
    private void ackSentAhead(Lane lane, long now) throws LostException {
        SentAhead sent = lane.sentAhead();
        if (!pipeline.ackThenOpen(lane, lane.batch(), sent.read(), false)) {
            lane.apply(new Acked(now, now + renewEveryNanos));
            return;
        }
        CompletableFuture<Optional<ReadAhead>> readingAfter = lane.ahead().takeAfterNext();
        lane.apply(new SentAheadOpened(now + renewEveryNanos));
        pipeline.startReadAhead(lane, sent.read().batch().first(), readingAfter);
    }

    /** Hands over the first chunk of the batch read ahead after the lane's current one, which stays unacked. */
    private List<SourceRecord> sendAhead(Lane lane) {
        Pipeline.SendingAhead out = pipeline.sendAhead(lane);
        lane.apply(new SentAheadOut(out.sent()));
        return out.records();
    }

    /**
     * How long a reader that found no batch rests: the poll interval; or, while ticks are heard
     * and only a tick can give it a batch, until its lease wants renewing, which the next receive
     * does. Without the ticks, a quiet slot's receives every poll interval were most of an idle
     * connector's queries.
     */
    private long emptyRestNanos(Lane lane) {
        return lane.reader().waitsForTicks() && loop.hearsTicks()
                ? Math.max(renewEveryNanos, loop.restNanos()) : loop.restNanos();
    }

    /**
     * Puts a received batch in flight and turns its first page into records; null when there is
     * nothing to send. {@code readingAfter}: the batch after it, read ahead already (null: none is).
     */
    private List<SourceRecord> emit(Lane lane, Optional<OpenedBatch> received, long now,
                                    CompletableFuture<Optional<ReadAhead>> readingAfter) {
        if (received.isEmpty()) {
            lane.apply(new FoundNothing(now + renewEveryNanos, now + emptyRestNanos(lane)));
            return null;
        }
        Chunks.Opening opening = chunks.opening(lane, received.get());
        lane.apply(new Started(opening.batch(), opening.more(), ticksBeforeCall, now + renewEveryNanos));
        pipeline.startReadAhead(lane, received.get().first(), readingAfter);
        return chunks.emit(lane, opening.batch(), opening.first(), !opening.more());
    }

    /**
     * The next chunk of the lane's batch: buffered, or read through its cursor (opened on the first
     * chunk after the first page, and again after a failure, from where reading stopped).
     */
    List<SourceRecord> readOn(Lane lane) {
        StreamedBatch batch = lane.batch();
        List<Message> buffered = batch.takeBuffered(chunks.chunkSize());
        if (buffered != null) {
            return chunks.emit(lane, batch, buffered, batch.readToEnd());
        }
        List<Message> chunk;
        try {
            RestOfBatch cursor = batch.cursor();
            if (cursor == null) {
                cursor = lane.reader().readOn(batch.batchId(), batch.restAfter());
                batch.cursorOpened(cursor);
            }
            chunk = cursor.next(chunks.chunkSize());
        } catch (LostException e) {
            lose(lane, e);
            return null;
        } catch (RuntimeException e) {
            // The cursor may be broken with its connection: read on through a new one next time.
            batch.closeCursor();
            throw e;
        }
        // The cursor renewed the lease when it was opened; a long stream also renews explicitly.
        return chunks.emit(lane, batch, chunk, chunk.size() < chunks.chunkSize());
    }

    private boolean claim(Lane lane) {
        if (!lane.reader().claim()) {
            return false;
        }
        lane.apply(new Claimed(System.nanoTime() + renewEveryNanos));
        events.leaseAcquired(lane.reader().id());
        return true;
    }

    /** Keeps the right to read of a lane whose batch is still on its way to Kafka. */
    void keepAlive(Lane lane, long now) {
        BatchReader.KeepAlive kept;
        try {
            kept = lane.reader().keepAlive();
        } catch (LostException e) {
            lose(lane, e);
            return;
        }
        switch (kept) {
            case KEPT -> lane.apply(new Renewed(now + renewEveryNanos));
            case NOT_NOW -> lane.apply(new Renewed(now + loop.restNanos()));
            case TAKEN_OVER -> {
                // Whatever we had in flight may have been handled by the other owner: start afresh.
                lose(lane, null);
                lane.apply(new Claimed(now + renewEveryNanos));
                events.leaseAcquired(lane.reader().id());
            }
        }
    }

    /** Acks the lane's delivered batch (and opens the one sent ahead after it, if any). */
    void ack(Lane lane, long now) {
        try {
            if (lane.sentAhead() != null) {
                ackSentAhead(lane, now);
                return;
            }
            StreamedBatch batch = lane.batch();
            if (!lane.reader().ack(batch.batchId())) {
                log.debug("{} was already finished", batch);
            }
            // A read ahead of the next batch is not opened by a plain ack: give back what it holds.
            lane.ahead().drop();
            lane.apply(new Acked(now, now + renewEveryNanos));
            events.batchAcked(lane.reader().id(), Chunks.clamp(batch.size()));
        } catch (LostException e) {
            lose(lane, e);
        }
    }

    /** The lane's lease (or batch) is gone: forget what was in flight without acking it. */
    void lose(Lane lane, LostException why) {
        ReaderId reader = lane.reader().id();
        StreamedBatch dropped = lane.batch();
        if (dropped != null) {
            dropped.closeCursor();
        }
        lane.apply(new Lost(System.nanoTime())); // gives back the reads ahead too
        events.leaseLost(reader);
        log.warn("Lost {}: {}. {} Will read it again when it is free.", reader.logName(),
                why == null ? "another worker owned it in between" : why.getMessage(),
                dropped == null ? "Nothing was in flight."
                        : "Not acking " + dropped + "; its events will be delivered again.");
    }
}

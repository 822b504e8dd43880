/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.delivery.Delivery;
import io.pgque.connect.source.metrics.StreamEvents;
import io.pgque.connect.source.reader.BatchReader;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.ticker.TickReceiver;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The stream of one task's batches into Kafka, over its readers (a task's slots, or its one
 * cooperative member). Each {@link #poll()} runs a pass: the {@link HandOver} asks readers in turn
 * for what they have ({@link Steps}, by each reader's {@link ReaderState}), delivered batches are
 * acked (and the next read in the same database transaction), and readers whose batch waits on
 * Kafka keep their right to read alive. Per reader at most one batch is in flight, read a chunk at
 * a time; its next batch is opened only after it is acked, so its events leave in order and a
 * failure replays a suffix, never a gap.
 *
 * <p>Threads: {@link #poll()}, {@link #close} and {@link #abandon} run the database calls and own
 * the lanes (under this object's lock). Kafka's acknowledgements arrive on the producer's thread
 * and only count down a batch's {@link DeliveryCount} and wake the poll thread; they never touch
 * the database or wait for the lock.
 */
public final class BatchStream implements TickReceiver {

    private static final Logger log = LoggerFactory.getLogger(BatchStream.class);

    private final List<Lane> lanes = new ArrayList<>();
    private final PollLoop loop;
    private final Steps steps;
    private final Pipeline pipeline;
    private final HandOver handOver;
    private final long keepAliveNanos;
    /** What reading ahead holds for all readers (a thread, connections), closed last; null when nothing. */
    private final AutoCloseable aheads;
    /** A failure of a side step (acking or keeping another reader alive) met after a batch was taken; see {@link #step()}. */
    private RuntimeException deferred;
    /** Closed or abandoned: what the readers held is gone, and neither may run again. */
    private boolean ended;

    /**
     * @param kind      how a poll hands the readers' chunks over (see {@link HandOver.Kind})
     * @param delivery  transactions (where each ends) and what Kafka already holds per reader
     * @param aheads    what the readers' read-ahead holds, closed with the stream; null when none
     * @param what      who reads what, for messages: "queue 'q' as consumer 'c'"
     */
    public BatchStream(List<? extends BatchReader> readers, HandOver.Kind kind, RecordFactory records,
                       StreamEvents events, Delivery delivery, StreamSettings settings, AutoCloseable aheads, Supplier<String> what) {
        readers.forEach(reader -> lanes.add(new Lane(reader)));
        this.keepAliveNanos = settings.keepAlive().toNanos();
        this.loop = new PollLoop(this, settings.pollInterval(), settings.backoff(), what);
        Chunks chunks = new Chunks(records, events, delivery.positions(), settings.chunkSize(), loop::wake);
        this.pipeline = new Pipeline(chunks, events, loop, settings.sendAhead());
        this.steps = new Steps(chunks, pipeline, events, loop, keepAliveNanos);
        this.handOver = kind.over(lanes, steps, delivery.boundary());
        this.aheads = aheads;
    }

    /**
     * The next chunk of some reader's batch (of every reader that has one, with Kafka
     * transactions), or null when none was ready within the poll interval.
     *
     * @throws RetriableException when the database is unreachable for now (after a backoff)
     * @throws ConnectException   when reading cannot go on without a person (wrong N, no queue, no rights)
     */
    public List<SourceRecord> poll() throws InterruptedException {
        return loop.poll(() -> {
            throwDeferred();
            return step();
        }, this::nextDueNanos);
    }

    /** The queue ticked: readers resting for want of a batch look again at once. Any thread; never blocks. */
    @Override
    public void tickArrived() {
        loop.tickArrived();
    }

    /** Whether ticks are heard, so a reader that found no batch may wait for the next one. Any thread. */
    @Override
    public void hearing(boolean heard) {
        loop.hearing(heard);
    }

    /** Makes a running or future {@link #poll()} return at once. Any thread. */
    public void stop() {
        loop.stop();
    }

    /**
     * At a batch boundary, gives the readers back: waits up to {@code grace} for Kafka to take
     * what is in flight, acks every fully delivered batch and gives back the right to read of
     * every reader with no open batch. A reader whose batch is still out keeps it until its lease
     * runs out (or, a cooperative member, until its next start); its next owner gets the same
     * batch again (at-least-once).
     */
    public synchronized void close(Duration grace) {
        stop();
        if (ended) {
            return;
        }
        ended = true;
        long end = System.nanoTime() + grace.toNanos();
        try {
            while (anyUndelivered() && System.nanoTime() < end) {
                loop.await(end - System.nanoTime());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            for (Lane lane : lanes) {
                giveBack(lane);
            }
        } finally {
            // Also after a failed give-back: the read-ahead may hold windows shared with other tasks.
            closeAheads();
        }
    }

    /**
     * Ends the stream of a slot set that a resize retired, giving nothing back: the engine no
     * longer has the set's leases and batches, so an ack or a release could only fail, and
     * nothing of the set waits on Kafka (it was retired once each of its slots had acked all it
     * read, up to the seal). What the readers hold in the task goes all the same: the cursors of
     * their batches, the batches read ahead (with the connections those hold), and the read-ahead
     * (its thread, and its slots' part in windows shared with the connector's other tasks, which
     * would otherwise be scanned for as long as the worker runs). Acknowledgements of records
     * handed over before still arrive here and count down batches nobody acks.
     */
    public synchronized void abandon() {
        stop();
        if (ended) {
            return;
        }
        ended = true;
        try {
            for (Lane lane : lanes) {
                if (lane.batch() != null) {
                    lane.batch().closeCursor();
                }
                lane.ahead().drop();
            }
        } finally {
            closeAheads();
        }
    }

    private void closeAheads() {
        if (aheads != null) {
            try {
                aheads.close();
            } catch (Exception e) {
                log.debug("Closing the read-ahead failed: {}", e.getMessage(), e);
            }
        }
    }

    private void giveBack(Lane lane) {
        if (lane.batch() != null) {
            lane.batch().closeCursor();
            lane.ahead().drop();
        }
        String reader = lane.reader().id().logName();
        try {
            long now = System.nanoTime();
            if (lane.state() == ReaderState.DELIVERED || lane.state() == ReaderState.AWAITING_READ_AHEAD) {
                steps.ack(lane, now); // and opens the batch sent ahead, if any ...
                if (lane.batch() != null && lane.batch().isDelivered()) {
                    steps.ack(lane, now); // ... which Kafka may hold whole too
                }
            }
            if (lane.state() == ReaderState.RESTING) {
                lane.reader().release();
                lane.apply(new LaneChange.Lost(now));
            } else if (lane.leased()) {
                log.info("Keeping {} as it stops: {} is not fully in Kafka yet and will be delivered again by whoever "
                        + "reads it next", reader, lane.batch());
            }
        } catch (RuntimeException e) {
            log.warn("Could not give back {} cleanly; its lease runs out on its own: {}", reader, e.getMessage(), e);
        }
    }

    /**
     * One pass over the lanes: what the {@link HandOver} takes, then keeping alive the readers
     * whose batch waits on Kafka. The one thing a failure must not do is lose a batch already
     * taken in this pass: its lane counts it as in flight, and records nobody returned would never
     * be acked, so the reader would keep its lease forever without progress. Once a batch is
     * taken, a failing side step therefore ends the pass and its failure is kept for the next
     * {@link #poll()} to report.
     */
    private List<SourceRecord> step() {
        loop.clearWakeups();
        long now = System.nanoTime();
        boolean tick = loop.takeTick();
        List<SourceRecord> out = new ArrayList<>();
        boolean sawEveryLane = false;
        try {
            sawEveryLane = handOver.serve(out, now, tick);
            for (Lane lane : lanes) {
                if (lane.state().holdsBatch() && now >= lane.nextRenewalNanos()) {
                    steps.keepAlive(lane, now);
                }
            }
        } catch (RuntimeException e) {
            if (out.isEmpty()) {
                throw e;
            }
            deferred = e;
        }
        if (tick && !sawEveryLane) {
            // The pass stopped early: the lanes it did not look at have not looked since the tick.
            loop.keepTick();
        }
        return handOver.end(out);
    }

    /** Where each reader stands, in the order the stream was given them. */
    synchronized List<ReaderState> states() {
        return lanes.stream().map(Lane::state).toList();
    }

    private void throwDeferred() {
        RuntimeException failure = deferred;
        if (failure != null) {
            deferred = null;
            throw failure;
        }
    }

    /** When, in {@link System#nanoTime()}, the next pass is due without a wake-up. */
    synchronized long nextDueNanos() {
        long due = Long.MAX_VALUE;
        for (Lane lane : lanes) {
            due = Math.min(due, lane.dueNanos(pipeline.canSendAhead(lane), keepAliveNanos));
        }
        return due;
    }

    private boolean anyUndelivered() {
        for (Lane lane : lanes) {
            if (lane.undelivered()) {
                return true;
            }
        }
        return false;
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.coop;

import io.pgque.client.BatchCursor;
import io.pgque.client.BatchNotFoundException;
import io.pgque.client.BatchPage;
import io.pgque.client.CoopConsumer;
import io.pgque.client.Message;
import io.pgque.connect.source.delivery.BatchBoundary;
import io.pgque.connect.source.offsets.DeliveredPosition;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.slot.PollLoop;
import io.pgque.connect.source.slot.SlotEvents;
import io.pgque.connect.source.slot.StreamedBatch;
import io.pgque.connect.source.slot.TickReceiver;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The loop of one cooperative worker (a task): at most one batch in flight, handed over in
 * chunks of at most {@code chunkSize} records as in the slot loop (a first page, then a cursor
 * over the rest, the next chunk once all but one are in Kafka; see {@link StreamedBatch}); each
 * {@link #poll()} acks the batch once Kafka has every record of it and then takes the group's
 * next batch, or, while Kafka still has records of it, marks the worker alive
 * ({@code touch_subconsumer}) so no sibling takes the batch over meanwhile.
 *
 * <p>Threads as in the slot loop: {@link #poll()} and {@link #close} run the database calls
 * under this object's lock; Kafka's acknowledgements only count down the {@link StreamedBatch}
 * and wake the poll thread.
 */
public final class CoopPoller implements TickReceiver {

    private static final Logger log = LoggerFactory.getLogger(CoopPoller.class);
    /** All members' slots are reported as this one: cooperative mode has none. */
    private static final int NO_SLOT = RecordFactory.NO_SLOT;

    private final CoopConsumer consumer;
    private final RecordFactory records;
    private final long touchEveryNanos;
    private final int chunkSize;
    private final DataSource cursors;
    private final SlotEvents events;
    private final Supplier<Optional<DeliveredPosition>> delivered;
    private final BatchBoundary boundary;
    private final PollLoop loop;
    private StreamedBatch inFlight;
    private boolean deliveryCheck = true;
    private long nextTouchNanos;
    private long nextReceiveNanos;

    /**
     * @param consumer     this task's worker, with the dead interval it applies to silent siblings (or none)
     * @param touchEvery   how often the worker says it is alive while its batch waits for Kafka
     * @param pollInterval how long the worker rests after finding no batch, and the longest one poll() waits
     * @param chunkSize    most records one poll() returns, and events per read from the database
     * @param cursors      connections for the cursor over the rest of a large batch
     * @param delivered    the last position Kafka holds for this worker (exactly-once), else always empty
     * @param boundary     told where each batch ends, to end a Kafka transaction there
     */
    public CoopPoller(CoopConsumer consumer, RecordFactory records, Duration touchEvery, Duration pollInterval,
                      int chunkSize, DataSource cursors, Duration backoff, SlotEvents events,
                      Supplier<Optional<DeliveredPosition>> delivered, BatchBoundary boundary) {
        this.consumer = consumer;
        this.records = records;
        this.touchEveryNanos = touchEvery.toNanos();
        this.loop = new PollLoop(this, pollInterval, backoff, () -> "queue '" + consumer.queue() + "' as worker '"
                + consumer.subconsumer() + "' of cooperative consumer '" + consumer.consumer() + "'");
        this.chunkSize = chunkSize;
        this.cursors = cursors;
        this.events = events;
        this.delivered = delivered;
        this.boundary = boundary;
    }

    /**
     * The next chunk of the worker's batch, or null when none was ready within the poll interval.
     *
     * @throws RetriableException when the database is unreachable for now (after a backoff)
     * @throws ConnectException   when reading cannot go on without a person
     */
    public List<SourceRecord> poll() throws InterruptedException {
        return loop.poll(this::step, () -> inFlight == null ? nextReceiveNanos
                : inFlight.readyForMore() || inFlight.isDelivered() ? Long.MIN_VALUE : nextTouchNanos);
    }

    /**
     * The queue ticked (a {@code TickListener} heard it): a worker resting because it found no
     * batch asks for one at once instead of at the end of its poll interval. Any thread; never
     * blocks.
     */
    @Override
    public void tickArrived() {
        loop.tickArrived();
    }

    /** Makes a running or future {@link #poll()} return at once. Any thread. */
    public void stop() {
        loop.stop();
    }

    /**
     * Waits up to {@code grace} for Kafka to take the batch in flight and acks it if it did. A
     * batch still out stays with this worker's name: the task's next start gets it again.
     */
    public synchronized void close(Duration grace) {
        stop();
        long end = System.nanoTime() + grace.toNanos();
        try {
            while (inFlight != null && !inFlight.isDelivered() && System.nanoTime() < end) {
                loop.await(end - System.nanoTime());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (inFlight == null) {
            return;
        }
        inFlight.closeCursor();
        try {
            if (inFlight.isDelivered()) {
                ack(System.nanoTime());
            } else {
                log.info("Worker {} of {} stops with {} not fully in Kafka; it stays the worker's and is delivered "
                        + "again when the task starts", consumer.subconsumer(), consumer.consumer(), inFlight);
            }
        } catch (RuntimeException e) {
            log.warn("Could not ack {} of worker {} of {} on stopping; the task's next start delivers it again: {}",
                    inFlight, consumer.subconsumer(), consumer.consumer(), e.getMessage(), e);
        }
    }

    private List<SourceRecord> step() {
        loop.clearWakeups();
        long now = System.nanoTime();
        if (loop.takeTick()) {
            nextReceiveNanos = now;
        }
        if (inFlight != null) {
            if (!inFlight.isDelivered()) {
                if (now >= nextTouchNanos) {
                    touch(now);
                }
                return inFlight.readyForMore() ? readOn() : null;
            }
            ack(now);
        }
        if (now < nextReceiveNanos) {
            return null;
        }
        Optional<BatchPage> received = consumer.receivePage(chunkSize);
        now = System.nanoTime();
        if (received.isEmpty()) {
            nextReceiveNanos = now + loop.restNanos();
            return null;
        }
        BatchPage page = received.get();
        StreamedBatch batch = new StreamedBatch(page.batchId(), 0, chunkSize, loop::wake);
        if (deliveryCheck) {
            checkDelivered(batch);
            deliveryCheck = false;
        }
        inFlight = batch;
        nextTouchNanos = now + touchEveryNanos;
        return emitChunk(batch, page.messages(), !page.full());
    }

    /** The next chunk of the batch, through its cursor (opened again after a failure, from where reading stopped). */
    private List<SourceRecord> readOn() {
        StreamedBatch batch = inFlight;
        List<Message> chunk;
        try {
            BatchCursor cursor = batch.cursor();
            if (cursor == null) {
                cursor = consumer.openRest(cursors, batch.batchId(), batch.restAfter());
                batch.cursorOpened(cursor);
            }
            chunk = cursor.next(chunkSize);
        } catch (BatchNotFoundException e) {
            // At-least-once: a sibling took the batch over after we were silent too long, and delivers it again.
            log.warn("Worker {} of {} lost {} while reading it: {}", consumer.subconsumer(), consumer.consumer(), batch,
                    e.getMessage());
            batch.closeCursor();
            inFlight = null;
            nextReceiveNanos = System.nanoTime();
            return null;
        } catch (RuntimeException e) {
            batch.closeCursor();
            throw e;
        }
        return emitChunk(batch, chunk, chunk.size() < chunkSize);
    }

    private List<SourceRecord> emitChunk(StreamedBatch batch, List<Message> chunk, boolean last) {
        List<Message> toSend = batch.take(chunk);
        List<SourceRecord> out = new ArrayList<>(toSend.size());
        for (Message message : toSend) {
            SourceRecord record = records.create(message, consumer.subconsumer(), batch);
            if (record != null) { // null: dead-lettered as unreadable, and counted as delivered
                out.add(record);
            }
        }
        if (last) {
            batch.lastChunkTaken();
            if (batch.resumed() && batch.sent() == 0) {
                events.batchSkipped(NO_SLOT, (int) Math.min(batch.size(), Integer.MAX_VALUE));
                log.info("Batch {} of worker {} of {} is in Kafka already, to its last event (its offset was "
                        + "committed with it); acking it without sending it again", batch.batchId(),
                        consumer.subconsumer(), consumer.consumer());
            }
        }
        if (out.isEmpty()) {
            return null; // all of it in Kafka already or dead-lettered; a complete batch is acked on the next step
        }
        // Exactly-once: a Kafka transaction per chunk (a task holds one batch at a time).
        boundary.transactionEndsAfter(out.get(out.size() - 1));
        events.batchEmitted(NO_SLOT, out.size());
        log.debug("Worker {} emitted {} records of {}", consumer.subconsumer(), out.size(), batch);
        return out;
    }

    /**
     * How much of the first batch after a start Kafka holds already. Only the first: a later
     * batch is received after this task acked the one before, so none of it can be in Kafka
     * already. The worker gets its open batch back under the same id after a restart, which is
     * what makes the committed offset comparable.
     */
    private void checkDelivered(StreamedBatch batch) {
        Optional<DeliveredPosition> position = delivered.get();
        if (position.isEmpty()) {
            return;
        }
        if (position.get().isAheadOf(batch.batchId())) {
            log.warn("The committed offset of worker {} of {} is at batch {}, beyond its open batch {}: was the "
                    + "database restored from a backup? Sending the batch whole; reset the connector's offsets after "
                    + "such a restore.", consumer.subconsumer(), consumer.consumer(), position.get().batchId(),
                    batch.batchId());
        } else if (position.get().batchId() == batch.batchId()) {
            batch.heldInKafkaThrough(position.get().eventId());
            log.info("Resuming batch {} of worker {} of {} after event {}: Kafka holds it up to there",
                    batch.batchId(), consumer.subconsumer(), consumer.consumer(), position.get().eventId());
        }
    }

    private void ack(long now) {
        StreamedBatch done = inFlight;
        try {
            consumer.ack(done.batchId());
            events.batchAcked(NO_SLOT, (int) Math.min(done.size(), Integer.MAX_VALUE));
        } catch (BatchNotFoundException e) {
            // Our earlier ack committed but its answer was lost, or (at-least-once) a sibling took the
            // batch over after we were silent too long and delivers it again. Finished for us either way.
            log.warn("Worker {} of {} could not ack {}: {}", consumer.subconsumer(), consumer.consumer(), done,
                    e.getMessage());
        }
        inFlight = null;
        nextReceiveNanos = now;
    }

    private void touch(long now) {
        if (!consumer.touch()) {
            log.warn("Worker {} of {} is not registered any more (unregistered by hand?); its batch will not be "
                    + "acked and comes to a sibling again", consumer.subconsumer(), consumer.consumer());
        }
        nextTouchNanos = now + touchEveryNanos;
    }
}

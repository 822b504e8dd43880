/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.coop;

import io.pgque.client.Batch;
import io.pgque.client.BatchNotFoundException;
import io.pgque.client.CoopConsumer;
import io.pgque.client.Message;
import io.pgque.client.PgQueException;
import io.pgque.connect.source.delivery.BatchBoundary;
import io.pgque.connect.source.offsets.DeliveredPosition;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.slot.SlotEvents;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The loop of one cooperative worker (a task): at most one batch in flight; each
 * {@link #poll()} acks it once Kafka has every record of it and then takes the group's next
 * batch, or, while Kafka still has records of it, marks the worker alive
 * ({@code touch_subconsumer}) so no sibling takes the batch over meanwhile.
 *
 * <p>Threads as in the slot loop: {@link #poll()} and {@link #close} run the database calls
 * under this object's lock; Kafka's acknowledgements only count down the {@link CoopBatch} and
 * wake the poll thread.
 */
public final class CoopPoller {

    private static final Logger log = LoggerFactory.getLogger(CoopPoller.class);
    private static final Object STOP = new Object();
    private static final Object TICK = new Object();
    /** All members' slots are reported as this one: cooperative mode has none. */
    private static final int NO_SLOT = RecordFactory.NO_SLOT;

    private final CoopConsumer consumer;
    private final RecordFactory records;
    private final long touchEveryNanos;
    private final long restNanos;
    private final int pageSize;
    private final Duration backoff;
    private final SlotEvents events;
    private final Supplier<Optional<DeliveredPosition>> delivered;
    private final BatchBoundary boundary;
    private final LinkedBlockingQueue<Object> wakeups = new LinkedBlockingQueue<>();
    /** Set when the queue ticked since the last step: a worker resting for want of a batch asks again. */
    private final AtomicBoolean ticked = new AtomicBoolean();
    private volatile boolean stopping;
    private CoopBatch inFlight;
    private boolean deliveryCheck = true;
    private long nextTouchNanos;
    private long nextReceiveNanos;

    /**
     * @param consumer     this task's worker, with the dead interval it applies to silent siblings (or none)
     * @param touchEvery   how often the worker says it is alive while its batch waits for Kafka
     * @param pollInterval how long the worker rests after finding no batch, and the longest one poll() waits
     * @param delivered    the last position Kafka holds for this worker (exactly-once), else always empty
     * @param boundary     told where each batch ends, to end a Kafka transaction there
     */
    public CoopPoller(CoopConsumer consumer, RecordFactory records, Duration touchEvery, Duration pollInterval,
                      int pageSize, Duration backoff, SlotEvents events,
                      Supplier<Optional<DeliveredPosition>> delivered, BatchBoundary boundary) {
        this.consumer = consumer;
        this.records = records;
        this.touchEveryNanos = touchEvery.toNanos();
        this.restNanos = pollInterval.toNanos();
        this.pageSize = pageSize;
        this.backoff = backoff;
        this.events = events;
        this.delivered = delivered;
        this.boundary = boundary;
    }

    /**
     * The next whole batch, or null when none was ready within the poll interval.
     *
     * @throws RetriableException when the database is unreachable for now (after a backoff)
     * @throws ConnectException   when reading cannot go on without a person
     */
    public List<SourceRecord> poll() throws InterruptedException {
        long deadline = System.nanoTime() + restNanos;
        while (!stopping) {
            long nextDue;
            try {
                synchronized (this) {
                    if (stopping) {
                        break;
                    }
                    List<SourceRecord> batch = step();
                    if (batch != null) {
                        return batch;
                    }
                    nextDue = inFlight == null ? nextReceiveNanos : nextTouchNanos;
                }
            } catch (PgQueException | ConnectException e) {
                throw translate(e);
            } catch (RuntimeException e) {
                if (PgQueException.isTransient(e)) {
                    throw translate(e);
                }
                throw e;
            }
            long now = System.nanoTime();
            if (now >= deadline) {
                return null;
            }
            long wait = Math.max(Math.min(nextDue, deadline) - now, TimeUnit.MILLISECONDS.toNanos(1));
            wakeups.poll(wait, TimeUnit.NANOSECONDS);
        }
        return null;
    }

    /**
     * The queue ticked (a {@code TickListener} heard it): a worker resting because it found no
     * batch asks for one at once instead of at the end of its poll interval. Any thread; never
     * blocks.
     */
    public void tickArrived() {
        ticked.set(true);
        wakeups.offer(TICK);
    }

    /** Makes a running or future {@link #poll()} return at once. Any thread. */
    public void stop() {
        stopping = true;
        wakeups.offer(STOP);
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
                wakeups.poll(Math.max(end - System.nanoTime(), 1), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (inFlight == null) {
            return;
        }
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
        wakeups.clear();
        long now = System.nanoTime();
        if (ticked.getAndSet(false)) {
            nextReceiveNanos = now;
        }
        if (inFlight != null) {
            if (!inFlight.isDelivered()) {
                if (now >= nextTouchNanos) {
                    touch(now);
                }
                return null;
            }
            ack(now);
        }
        if (now < nextReceiveNanos) {
            return null;
        }
        Optional<Batch> received = consumer.receive(pageSize);
        now = System.nanoTime();
        if (received.isEmpty()) {
            nextReceiveNanos = now + restNanos;
            return null;
        }
        return emit(received.get(), now);
    }

    private List<SourceRecord> emit(Batch batch, long now) {
        List<Message> toSend = batch.messages();
        if (deliveryCheck) {
            toSend = notYetInKafka(batch);
            deliveryCheck = false;
            if (toSend.isEmpty()) {
                inFlight = new CoopBatch(batch.batchId(), 0, wakeups::offer);
                events.batchSkipped(NO_SLOT, batch.size());
                log.info("Batch {} ({} events) of worker {} of {} is in Kafka already (its offset was committed "
                        + "with it); acking it without sending it again", batch.batchId(), batch.size(),
                        consumer.subconsumer(), consumer.consumer());
                ack(now);
                return null;
            }
        }
        inFlight = new CoopBatch(batch.batchId(), toSend.size(), wakeups::offer);
        List<SourceRecord> out = new ArrayList<>(toSend.size());
        for (Message message : toSend) {
            SourceRecord record = records.create(message, consumer.subconsumer(), inFlight);
            if (record != null) { // null: dead-lettered as unreadable, and counted as delivered
                out.add(record);
            }
        }
        nextTouchNanos = now + touchEveryNanos;
        if (out.isEmpty()) {
            return null; // the whole batch was dead-lettered; it is acked on the next step
        }
        boundary.batchEnds(out.get(out.size() - 1));
        events.batchEmitted(NO_SLOT, toSend.size());
        log.debug("Worker {} emitted {}", consumer.subconsumer(), inFlight);
        return out;
    }

    /**
     * The part of the first batch after a start that Kafka does not hold yet. Only the first:
     * a later batch is received after this task acked the one before, so none of it can be in
     * Kafka already. The worker gets its open batch back under the same id after a restart,
     * which is what makes the committed offset comparable.
     */
    private List<Message> notYetInKafka(Batch batch) {
        Optional<DeliveredPosition> position = delivered.get();
        if (position.isEmpty()) {
            return batch.messages();
        }
        if (position.get().isAheadOf(batch)) {
            log.warn("The committed offset of worker {} of {} is at batch {}, beyond its open batch {}: was the "
                    + "database restored from a backup? Sending the batch whole; reset the connector's offsets after "
                    + "such a restore.", consumer.subconsumer(), consumer.consumer(), position.get().batchId(),
                    batch.batchId());
            return batch.messages();
        }
        List<Message> rest = position.get().remainderOf(batch);
        if (!rest.isEmpty() && rest.size() < batch.size()) {
            log.info("Resuming batch {} of worker {} of {} after event {}: Kafka holds {} of its {} events",
                    batch.batchId(), consumer.subconsumer(), consumer.consumer(), position.get().eventId(),
                    batch.size() - rest.size(), batch.size());
        }
        return rest;
    }

    private void ack(long now) {
        CoopBatch done = inFlight;
        try {
            consumer.ack(done.batchId());
            events.batchAcked(NO_SLOT, done.size());
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

    private RuntimeException translate(RuntimeException e) throws InterruptedException {
        if (e instanceof ConnectException) {
            return e;
        }
        if (PgQueException.isTransient(e)) {
            log.warn("Database unavailable for worker {} of {} on queue {}; retrying in {} ms: {}",
                    consumer.subconsumer(), consumer.consumer(), consumer.queue(), backoff.toMillis(), e.getMessage());
            log.debug("Worker {} of {}: the database failure", consumer.subconsumer(), consumer.consumer(), e);
            // Wait here, not in a tight loop: Connect calls poll() again at once after a retriable error.
            wakeups.poll(backoff.toMillis(), TimeUnit.MILLISECONDS);
            return new RetriableException(e.getMessage(), e);
        }
        return new ConnectException("Reading queue '" + consumer.queue() + "' as worker '" + consumer.subconsumer()
                + "' of cooperative consumer '" + consumer.consumer() + "' failed: " + e.getMessage(), e);
    }
}

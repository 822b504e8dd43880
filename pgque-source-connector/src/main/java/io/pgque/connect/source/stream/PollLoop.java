/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.client.PgQueException;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The wait of a {@link BatchStream} between its passes: one {@code poll()} runs passes under the
 * stream's monitor until one
 * returns records, the poll interval is over or the stream stops, and sleeps in between until
 * the next thing is due or something wakes it (a tick, Kafka's acknowledgement of a chunk, a
 * stop). A transient database failure waits out the backoff here, not in a tight loop (Connect
 * calls {@code poll()} again at once after a retriable error), and becomes a
 * {@link RetriableException}; any other database failure ends the task with what was being read.
 */
final class PollLoop {

    private static final Logger log = LoggerFactory.getLogger(PollLoop.class);
    private static final Object STOP = new Object();
    private static final Object TICK = new Object();
    private static final Object WORK = new Object();

    /** One pass over the stream's work: records to return, or null to wait. */
    public interface Pass {
        List<SourceRecord> run();
    }

    private final Object monitor;
    private final long restNanos;
    private final Duration backoff;
    private final Supplier<String> reader;
    private final LinkedBlockingQueue<Object> wakeups = new LinkedBlockingQueue<>();
    /** Set when the queue ticked since the last pass: whatever rests for want of a batch looks again. */
    private final AtomicBoolean ticked = new AtomicBoolean();
    /** Ticks heard so far: a batch opened before the count moved has no next batch yet. */
    private final AtomicLong ticksHeard = new AtomicLong();
    /** Whether the stream's tick listener hears the queue's ticks (see {@link TickReceiver#hearing}). */
    private volatile boolean hearsTicks;
    private volatile boolean stopping;

    /**
     * @param monitor the stream whose state the passes touch
     * @param pollInterval how long one {@code poll()} may wait for records
     * @param backoff the wait after a transient database failure
     * @param reader who reads what, for messages: "queue 'q' as consumer 'c'"
     */
    public PollLoop(Object monitor, Duration pollInterval, Duration backoff, Supplier<String> reader) {
        this.monitor = monitor;
        this.restNanos = pollInterval.toNanos();
        this.backoff = backoff;
        this.reader = reader;
    }

    /**
     * Runs passes until one returns records (returned), the poll interval is over or the stream
     * stops (null).
     *
     * @param nextDue when, in {@link System#nanoTime()}, the next pass is due without a wake-up
     */
    public List<SourceRecord> poll(Pass pass, LongSupplier nextDue) throws InterruptedException {
        long deadline = System.nanoTime() + restNanos;
        while (!stopping) {
            long due;
            try {
                synchronized (monitor) {
                    if (stopping) {
                        break;
                    }
                    List<SourceRecord> records = pass.run();
                    if (records != null) {
                        return records;
                    }
                    due = nextDue.getAsLong();
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
            wakeups.poll(waitNanos(due, deadline, now), TimeUnit.NANOSECONDS);
        }
        return null;
    }

    /**
     * How long to wait for a wake-up: until the next pass is due or the poll interval is over,
     * at least a millisecond. {@code Long.MIN_VALUE} means "due now" and must not be subtracted
     * from (it would wrap around to a wait of centuries).
     */
    static long waitNanos(long due, long deadline, long now) {
        long untilDue = due == Long.MIN_VALUE ? 0 : due == Long.MAX_VALUE ? Long.MAX_VALUE : due - now;
        return Math.max(Math.min(untilDue, deadline - now), TimeUnit.MILLISECONDS.toNanos(1));
    }

    /** The poll interval, in nanoseconds. */
    public long restNanos() {
        return restNanos;
    }

    /** The queue ticked: the next pass is told so, and a waiting poll wakes. Any thread; never blocks. */
    public void tickArrived() {
        ticksHeard.incrementAndGet();
        ticked.set(true);
        wakeups.offer(TICK);
    }

    /** Whether ticks are heard, so a pass may count on {@link #tickArrived} for the next one. Any thread. */
    public void hearing(boolean heard) {
        hearsTicks = heard;
    }

    public boolean hearsTicks() {
        return hearsTicks;
    }

    /** How many ticks were heard so far. Any thread. */
    public long ticksHeard() {
        return ticksHeard.get();
    }

    /** Whether the queue ticked since the last call; clears it. */
    public boolean takeTick() {
        return ticked.getAndSet(false);
    }

    /** Keeps the tick for the next pass (a pass that could not act on it). */
    public void keepTick() {
        ticked.set(true);
    }

    /** Wakes a waiting poll: there is work (Kafka acknowledged a chunk, a read-ahead is done). Any thread; never blocks. */
    public void wake() {
        wakeups.offer(WORK);
    }

    /** Forgets the wake-ups so far: a pass is about to look at everything anyway. */
    public void clearWakeups() {
        wakeups.clear();
    }

    /** Waits up to {@code nanos} for a wake-up. */
    public void await(long nanos) throws InterruptedException {
        wakeups.poll(Math.max(nanos, 1), TimeUnit.NANOSECONDS);
    }

    /** Makes a running or future {@link #poll} return at once. Any thread. */
    public void stop() {
        stopping = true;
        wakeups.offer(STOP);
    }

    public boolean stopping() {
        return stopping;
    }

    private RuntimeException translate(RuntimeException e) throws InterruptedException {
        if (e instanceof ConnectException) {
            return e;
        }
        if (PgQueException.isTransient(e)) {
            log.warn("Database unavailable reading {}; retrying in {} ms: {}", reader.get(), backoff.toMillis(), e.getMessage());
            log.debug("Reading {}: the database failure", reader.get(), e);
            wakeups.poll(backoff.toMillis(), TimeUnit.MILLISECONDS);
            return new RetriableException(e.getMessage(), e);
        }
        return new ConnectException("Reading " + reader.get() + " failed: " + e.getMessage(), e);
    }
}

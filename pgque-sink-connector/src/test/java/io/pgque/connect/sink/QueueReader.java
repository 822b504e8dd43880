/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.client.Batch;
import io.pgque.client.Message;
import io.pgque.client.PgQue;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Reads a queue the way a PgQue consumer does: subscribed before anything is sent, then tick
 * (each call in its own transaction, so the tick's snapshot sees the sink's commits), receive
 * whole batches, ack. Everything it has received stays in {@link #messages()}, in delivery order.
 */
public final class QueueReader {

    private static final Duration POLL_PAUSE = Duration.ofMillis(100);

    private final PgQue pq;
    private final String queue;
    private final String consumer;
    private final List<Message> messages = new ArrayList<>();

    /** Subscribes {@code consumer} to {@code queue} now: only events sent from now on are read. */
    public QueueReader(DataSource dataSource, String queue, String consumer) {
        this.pq = PgQue.using(dataSource);
        this.queue = queue;
        this.consumer = consumer;
        pq.consumer().subscribe(queue, consumer);
    }

    /** Reads until at least {@code count} messages have arrived in total; fails after {@code timeout}. */
    public List<Message> awaitCount(int count, Duration timeout) {
        return awaitUntil(all -> all.size() >= count, timeout, "at least " + count + " messages");
    }

    /** Reads until every payload in {@code payloads} has arrived at least once; fails after {@code timeout}. */
    public List<Message> awaitUntilAll(Set<String> payloads, Duration timeout) {
        return awaitUntil(all -> all.stream().map(Message::payload).collect(Collectors.toSet()).containsAll(payloads),
                timeout, "all " + payloads.size() + " payloads");
    }

    /** Reads until a message matches {@code last}; fails after {@code timeout}. */
    public List<Message> awaitMessage(Predicate<Message> last, Duration timeout, String what) {
        return awaitUntil(all -> all.stream().anyMatch(last), timeout, what);
    }

    private List<Message> awaitUntil(Predicate<List<Message>> done, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.test(messages)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("queue '" + queue + "': waited " + timeout + " for " + what + ", got "
                        + messages.size() + " messages");
            }
            if (!readOneBatch()) {
                pause();
            }
        }
        return List.copyOf(messages);
    }

    /**
     * Reads whatever is committed in the queue now, to the last batch: after it, everything
     * committed before this call has been received (or the call fails after {@code timeout}).
     */
    public List<Message> drain(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (readOneBatch()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("queue '" + queue + "': still batches to read after " + timeout);
            }
        }
        return List.copyOf(messages);
    }

    /** Everything received so far, in delivery order. */
    public List<Message> messages() {
        return List.copyOf(messages);
    }

    private boolean readOneBatch() {
        pq.operations().forceNextTick(queue);
        pq.operations().ticker(queue);
        Optional<Batch> batch = pq.consumer().receive(queue, consumer);
        if (batch.isEmpty()) {
            return false;
        }
        messages.addAll(batch.get().messages());
        pq.consumer().ack(batch.get());
        return true;
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_PAUSE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}

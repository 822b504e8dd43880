/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends the demo events to the input topic on a thread of its own, keyed by tenant, at a steady
 * rate. The rate matters for the latency figures: sending everything at once would measure how
 * long the backlog takes to drain, not how long one event takes to cross.
 */
public final class DemoProducer implements AutoCloseable {

    /** Header the sink turns into the event's {@code ev_type} ({@code pgque.event.type=${header:event_type}}). */
    public static final String TYPE_HEADER = "event_type";

    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final LifecycleGenerator generator;
    private final int events;
    private final int ratePerSecond;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean stopped;

    public DemoProducer(String bootstrapServers, String topic, LifecycleGenerator generator, int events, int ratePerSecond) {
        this.producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.CLIENT_ID_CONFIG, "pgque-quickstart-demo",
                // idempotence keeps each partition's order even when a batch is retried
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5),
                new StringSerializer(), new StringSerializer());
        this.topic = topic;
        this.generator = generator;
        this.events = events;
        this.ratePerSecond = ratePerSecond;
        this.thread = new Thread(this::sendAll, "pgque-quickstart-producer");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** Events Kafka has acknowledged so far. */
    public long acked() {
        return acked.get();
    }

    /** Why sending stopped early, if it did. */
    public Exception failure() {
        return failure.get();
    }

    private void sendAll() {
        long start = System.nanoTime();
        try {
            for (int i = 0; i < events && !stopped && failure.get() == null; i++) {
                if (ratePerSecond > 0) {
                    // pace to a schedule (event i leaves at start + i/rate), so that a slow moment is
                    // caught up rather than slowing the whole run
                    long due = start + (long) i * TimeUnit.SECONDS.toNanos(1) / ratePerSecond;
                    for (long wait = due - System.nanoTime(); wait > 0 && !stopped; wait = due - System.nanoTime()) {
                        LockSupport.parkNanos(wait);
                    }
                }
                LifecycleEvent event = generator.next(Clock.nowMicros());
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, event.tenant(), event.toJson());
                record.headers().add(TYPE_HEADER, event.type().name().getBytes(StandardCharsets.UTF_8));
                producer.send(record, (metadata, error) -> {
                    if (error == null) {
                        acked.incrementAndGet();
                    } else {
                        failure.compareAndSet(null, error);
                    }
                });
            }
            producer.flush();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    @Override
    public void close() {
        stopped = true;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
    }
}

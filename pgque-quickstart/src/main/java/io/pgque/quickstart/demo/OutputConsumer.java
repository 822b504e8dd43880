/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads the output topic on a thread of its own and hands every demo event to the verifier,
 * stamped with the time it was received.
 *
 * <p>It reads every partition from the end as it was when it started, without a consumer group:
 * a restarted quickstart should not replay old output, and nothing needs to be committed.
 */
public final class OutputConsumer implements AutoCloseable {

    private static final String EVENT_ID_HEADER = "pgque.event.id";

    private final KafkaConsumer<String, String> consumer;
    private final OutputVerifier verifier;
    private final List<TopicPartition> partitions = new ArrayList<>();
    private final CountDownLatch positioned = new CountDownLatch(1);
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean started;

    public OutputConsumer(String bootstrapServers, String topic, int partitionCount, OutputVerifier verifier) {
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.CLIENT_ID_CONFIG, "pgque-quickstart-verifier",
                // read only what the source committed to Kafka, as any downstream consumer would
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new StringDeserializer());
        for (int p = 0; p < partitionCount; p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        this.verifier = verifier;
        this.thread = new Thread(this::consume, "pgque-quickstart-verifier");
        this.thread.setDaemon(true);
    }

    /**
     * Starts reading and returns once every partition's start position is fixed, so no event
     * sent after this returns can be missed.
     */
    public void start(Duration timeout) throws InterruptedException {
        started = true;
        thread.start();
        if (!positioned.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the output consumer did not find the end of its topic within "
                    + timeout.toSeconds() + " s", failure.get());
        }
        if (failure.get() != null) {
            throw new IllegalStateException("the output consumer failed to start", failure.get());
        }
    }

    /** Why reading stopped, if it did. */
    public Exception failure() {
        return failure.get();
    }

    private void consume() {
        try {
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            // seekToEnd is lazy; asking for the positions resolves them now
            partitions.forEach(consumer::position);
            positioned.countDown();
            while (true) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    long receivedAt = Clock.nowMicros();
                    OptionalLong eventId = eventId(record);
                    LifecycleEvent.fromJson(record.value()).ifPresent(e -> verifier.accept(e, receivedAt, eventId));
                }
            }
        } catch (WakeupException stopping) {
            // close() asked us to stop
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        } finally {
            positioned.countDown();
            consumer.close();
        }
    }

    /** The queue's id of the event, from the source's header (Connect's default header converter writes it as text). */
    private static OptionalLong eventId(ConsumerRecord<String, String> record) {
        Header header = record.headers().lastHeader(EVENT_ID_HEADER);
        if (header == null || header.value() == null) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(new String(header.value(), StandardCharsets.UTF_8)));
        } catch (NumberFormatException notText) {
            return OptionalLong.empty();
        }
    }

    @Override
    public void close() {
        if (!started) {
            consumer.close();
            return;
        }
        consumer.wakeup();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

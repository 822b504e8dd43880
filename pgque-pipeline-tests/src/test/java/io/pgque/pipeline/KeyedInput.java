/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes the input stream into a topic at a steady rate, in the background: {@code keys} keys,
 * each with its own sequence 0, 1, 2, ..., as records "k042:17" keyed "k042". One round sends
 * one record of every key, so every key is spread over the whole run and every fault lands in
 * the middle of every key's stream. The payload is the event's identity for the checks.
 */
final class KeyedInput {

    /** Records per flush, and so per pacing step. */
    private static final int STEP = 50;

    private final String bootstrapServers;
    private final String topic;
    private final int keys;
    private final int perKey;
    private final int ratePerSecond;
    private final AtomicInteger produced = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private Thread thread;

    KeyedInput(String bootstrapServers, String topic, int keys, int perKey, int ratePerSecond) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
        this.keys = keys;
        this.perKey = perKey;
        this.ratePerSecond = ratePerSecond;
    }

    static String key(int k) {
        return String.format("k%03d", k);
    }

    int total() {
        return keys * perKey;
    }

    /** Records Kafka has acknowledged so far. */
    int produced() {
        return produced.get();
    }

    void start() {
        thread = new Thread(this::produceAll, "pipeline-input");
        thread.start();
    }

    /** Waits for the last record to be acknowledged; fails if producing failed. */
    void awaitDone(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        if (thread.isAlive()) {
            throw new AssertionError("input still producing after " + timeout + " (" + produced() + " of " + total() + ")");
        }
        if (failure.get() != null) {
            throw new AssertionError("producing the input failed", failure.get());
        }
    }

    private void produceAll() {
        Map<String, Object> props = Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5);
        long started = System.nanoTime();
        int unflushed = 0;
        try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(bootstrapServers, props)) {
            for (int seq = 0; seq < perKey; seq++) {
                for (int k = 0; k < keys; k++) {
                    producer.send(new ProducerRecord<>(topic, bytes(key(k)), bytes(key(k) + ":" + seq)));
                    if (++unflushed == STEP || (seq == perKey - 1 && k == keys - 1)) {
                        producer.flush();
                        produced.addAndGet(unflushed);
                        unflushed = 0;
                        pace(started);
                    }
                }
            }
        } catch (Throwable t) {
            failure.set(t);
        }
    }

    // Rate shaping, not a wait for anything: small steps keep the pipe busy all the time, so a
    // fault finds work in flight rather than an idle pipe between bursts.
    private void pace(long started) throws InterruptedException {
        long due = started + (long) produced.get() * 1_000_000_000L / ratePerSecond;
        long ahead = due - System.nanoTime();
        if (ahead > 0) {
            Thread.sleep(ahead / 1_000_000, (int) (ahead % 1_000_000));
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

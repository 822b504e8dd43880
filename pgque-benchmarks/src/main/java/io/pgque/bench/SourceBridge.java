/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.Batch;
import io.pgque.client.Consumer;
import io.pgque.client.Message;
import io.pgque.client.PgQue;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;

/**
 * The hand-written bridge: receive a whole batch with the plain consumer, send every event
 * with a KafkaProducer, wait for every acknowledgement, ack the batch. The producer is set up
 * as Connect sets up a source task's ({@link SourceTaskProducer}), so the difference is the
 * connector and the framework, not the producer settings.
 */
final class SourceBridge implements AutoCloseable {
    static final String CONSUMER = "bridge";

    private final Consumer consumer;
    private final KafkaProducer<String, String> producer;
    private final String queue;
    private final String consumerName;
    private final String topic;
    private long delivered;

    SourceBridge(Connection connection, String bootstrapServers, String queue) {
        this(connection, bootstrapServers, queue, CONSUMER, queue);
    }

    /** A bridge reading {@code queue} as {@code consumerName} into {@code topic}. */
    SourceBridge(Connection connection, String bootstrapServers, String queue, String consumerName, String topic) {
        this.consumer = PgQue.using(connection).consumer();
        this.consumerName = consumerName;
        this.topic = topic;
        this.producer = SourceTaskProducer.create(bootstrapServers);
        this.queue = queue;
    }

    /** One batch across, or a rest of {@code idle} when none was ready. */
    void step(Duration idle) throws Exception {
        Optional<Batch> received = consumer.receive(queue, consumerName);
        if (received.isEmpty()) {
            if (!idle.isZero()) {
                Thread.sleep(idle.toMillis()); // the bridge's poll interval, as a real loop would rest
            }
            return;
        }
        Batch batch = received.get();
        List<Future<RecordMetadata>> sends = new ArrayList<>(batch.size());
        for (Message m : batch.messages()) {
            sends.add(producer.send(SourceTaskProducer.record(topic, m.partitionKey(), m.payload(), m.msgId(),
                    m.type(), m.batchId(), m.retryCount())));
        }
        producer.flush();
        for (Future<RecordMetadata> send : sends) {
            send.get(); // an error here must stop the bridge before the ack
        }
        consumer.ack(batch);
        delivered += batch.size();
    }

    /** Moves batches without resting until {@code events} have crossed: a pre-loaded queue's drain. */
    void drain(long events) throws Exception {
        long deadline = System.nanoTime() + SourceBenchmark.DEADLINE.toNanos();
        while (delivered < events) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the bridge moved only " + delivered + " of " + events);
            }
            step(Duration.ZERO);
        }
    }

    long delivered() {
        return delivered;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }
}

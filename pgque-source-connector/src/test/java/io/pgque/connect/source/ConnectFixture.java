/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.Event;
import io.pgque.testsupport.EmbeddedConnect;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets;
import org.apache.kafka.connect.storage.StringConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Connect cluster (one KRaft broker, {@code workers} workers, in this JVM) next to a test
 * database, and what the cluster tests do with them: configure the source, send keyed events,
 * read the topic back and check per-key order.
 */
final class ConnectFixture implements AutoCloseable {

    static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(120);

    final EmbeddedConnectCluster connect;
    final QueueFixture pg;

    ConnectFixture(String name, int workers, Map<String, String> extraWorkerProps) {
        this(new QueueFixture(name.replace('-', '_')), name, workers, extraWorkerProps);
    }

    ConnectFixture(QueueFixture pg, String name, int workers, Map<String, String> extraWorkerProps) {
        this.pg = pg;
        this.connect = EmbeddedConnect.cluster(name, workers)
                .flushOffsetsEvery(Duration.ofSeconds(1))
                .singleBrokerTransactions()
                .worker(extraWorkerProps)
                .start();
    }

    @Override
    public void close() {
        connect.stop();
    }

    /**
     * Connect answers a PATCH or DELETE of offsets once the offsets topic has the write, but a
     * GET reads the worker's view of that topic, which catches up on its own time; so the test
     * waits for the view, as Kafka's own offsets API tests do, and shows the last view it saw.
     */
    void awaitStoredOffsets(String name, String what, Predicate<List<ConnectorOffset>> expected)
            throws InterruptedException {
        AtomicReference<List<ConnectorOffset>> last = new AtomicReference<>();
        try {
            QueueFixture.await(what, DELIVERY_TIMEOUT, () -> {
                last.set(connect.connectorOffsets(name).offsets());
                return expected.test(last.get());
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; last stored offsets: " + last.get(), e);
        }
    }

    /** A body for Connect's {@code PATCH /connectors/NAME/offsets} with one partition. */
    static ConnectorOffsets offsetsRequest(Map<String, ?> partition, Map<String, ?> offset) {
        return new ConnectorOffsets(List.of(new ConnectorOffset(partition, offset)));
    }

    Map<String, String> connectorConfig(String name, String queue, int slots, int tasks) {
        Map<String, String> config = new HashMap<>();
        config.put("name", name);
        config.put("connector.class", PgQueSourceConnector.class.getName());
        config.put("tasks.max", Integer.toString(tasks));
        config.put("connection.url", pg.jdbcUrl());
        config.put("pgque.queue", queue);
        config.put("pgque.slots", Integer.toString(slots));
        config.put("topic", queue);
        config.put("pgque.poll.interval.ms", "100");
        config.put("key.converter", StringConverter.class.getName());
        config.put("value.converter", StringConverter.class.getName());
        return config;
    }

    /**
     * Makes {@code config} exactly-once: the connector's guarantee, Connect's requirement of
     * exactly-once support from the worker, and a transaction handed over a chunk per poll.
     */
    static void exactlyOnce(Map<String, String> config) {
        config.put("pgque.delivery.guarantee", "exactly_once");
        config.put("exactly.once.support", "required");
        config.put("transaction.boundary", "connector");
    }

    /** Sends {@code perKey} events for each key, key by key in turn, {@code perTransaction} per transaction. */
    void sendInterleaved(String queue, int keys, int perKey, int perTransaction) {
        List<Event> pending = new ArrayList<>();
        for (int seq = 0; seq < perKey; seq++) {
            for (int k = 0; k < keys; k++) {
                String key = "key-" + k;
                pending.add(Event.of("order", key + ":" + seq).withPartitionKey(key));
                if (pending.size() == perTransaction) {
                    pg.send(queue, pending);
                    pending = new ArrayList<>();
                }
            }
        }
        if (!pending.isEmpty()) {
            pg.send(queue, pending);
        }
    }

    /**
     * Reads the topic from the start until {@code expected} distinct events were seen; returns,
     * per key, the sequence numbers in partition order (duplicates included).
     */
    Map<String, List<Integer>> readPerKey(String topic, int expected) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + topic + "-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, List<Integer>> byKey = new HashMap<>();
        Map<String, Integer> partitionOfKey = new HashMap<>();
        Set<String> distinct = new HashSet<>();
        long deadline = System.nanoTime() + DELIVERY_TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = connect.kafka().createConsumerAndSubscribeTo(props, topic)) {
            while (distinct.size() < expected) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("only " + distinct.size() + " of " + expected + " events reached "
                            + topic + " within " + DELIVERY_TIMEOUT.toSeconds() + " s");
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    String key = new String(record.key(), StandardCharsets.UTF_8);
                    String value = new String(record.value(), StandardCharsets.UTF_8);
                    Integer previous = partitionOfKey.putIfAbsent(key, record.partition());
                    assertTrue(previous == null || previous == record.partition(), "key " + key + " in two partitions");
                    distinct.add(value);
                    byKey.computeIfAbsent(key, k -> new ArrayList<>())
                            .add(Integer.parseInt(value.substring(value.lastIndexOf(':') + 1)));
                }
            }
        }
        return byKey;
    }

    /**
     * Per key, every sequence number is there, and each first delivery comes after the first
     * delivery of its predecessor: duplicates may replay a suffix, never reorder new events.
     */
    void assertPerKeyOrder(Map<String, List<Integer>> byKey, int keys, int perKey) {
        assertEquals(keys, byKey.size(), "every key arrived");
        int duplicates = 0;
        for (Map.Entry<String, List<Integer>> entry : byKey.entrySet()) {
            int next = 0;
            for (int seq : entry.getValue()) {
                if (seq == next) {
                    next++;
                } else if (seq > next) {
                    throw new AssertionError("key " + entry.getKey() + ": event " + seq + " arrived before " + next
                            + " (" + entry.getValue() + ")");
                } else {
                    duplicates++;
                }
            }
            assertEquals(perKey, next, "key " + entry.getKey() + " complete");
        }
        System.out.println("per-key order held for " + keys + " keys; " + duplicates + " replayed duplicates");
    }

    /**
     * Per key, no event is ever followed by one more than one step ahead of it: a duplicate
     * starts a replay that walks forward again one event at a time, so duplicates come only as a
     * replayed suffix of what was delivered, never as a stray old event among new ones.
     */
    void assertReplaysAreSuffixes(Map<String, List<Integer>> byKey) {
        for (Map.Entry<String, List<Integer>> entry : byKey.entrySet()) {
            List<Integer> seqs = entry.getValue();
            for (int i = 1; i < seqs.size(); i++) {
                if (seqs.get(i) > seqs.get(i - 1) + 1) {
                    throw new AssertionError("key " + entry.getKey() + ": " + seqs.get(i) + " follows "
                            + seqs.get(i - 1) + " at position " + i + " (" + seqs + ")");
                }
            }
        }
    }

    /**
     * Every committed record of the topic, read to the end as a {@code read_committed} consumer
     * sees it (records of aborted transactions never show); per key, the sequence numbers in
     * partition order. Call it once nothing more is being written.
     */
    Map<String, List<Integer>> readAllCommitted(String topic) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, List<Integer>> byKey = new HashMap<>();
        long deadline = System.nanoTime() + DELIVERY_TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = connect.kafka().createConsumer(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            // For read_committed, the end offsets are the last stable offsets.
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end within "
                            + DELIVERY_TIMEOUT.toSeconds() + " s");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    String key = new String(record.key(), StandardCharsets.UTF_8);
                    String value = new String(record.value(), StandardCharsets.UTF_8);
                    byKey.computeIfAbsent(key, k -> new ArrayList<>())
                            .add(Integer.parseInt(value.substring(value.lastIndexOf(':') + 1)));
                }
            }
        }
        return byKey;
    }

    /** Per key, each of {@code 0..perKey-1} exactly once, in order: no loss, no duplicate, no reordering. */
    void assertExactlyOnceInOrder(Map<String, List<Integer>> byKey, int keys, int perKey) {
        assertEquals(keys, byKey.size(), "every key arrived");
        List<Integer> expected = new ArrayList<>();
        for (int seq = 0; seq < perKey; seq++) {
            expected.add(seq);
        }
        for (Map.Entry<String, List<Integer>> entry : byKey.entrySet()) {
            assertEquals(expected, entry.getValue(), "key " + entry.getKey());
        }
    }

    /** Waits until every slot of the consumer has acked up to the end of the queue. */
    void awaitSlotsCaughtUp(String queue, String consumer, int slots) throws InterruptedException {
        QueueFixture.await("every slot of " + consumer + " acked up to the end", DELIVERY_TIMEOUT, () -> {
            for (int slot = 0; slot < slots; slot++) {
                if (pg.pendingEvents(queue, consumer, slot) != 0) {
                    return false;
                }
            }
            return true;
        });
    }

    /** How many records the topic holds, duplicates included. */
    long recordCount(String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = connect.kafka().createConsumer(Map.of())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * Starts a thread that sends sequence numbers {@code from..to-1} for {@code keys} keys, one
     * event per key per transaction, a transaction every 50 ms or so, so that faults a test
     * injects meanwhile land mid-stream.
     */
    Thread producePaced(String queue, int keys, int from, int to) {
        Thread producer = new Thread(() -> {
            for (int seq = from; seq < to; seq++) {
                List<Event> events = new ArrayList<>(keys);
                for (int k = 0; k < keys; k++) {
                    events.add(Event.of("order", "key-" + k + ":" + seq).withPartitionKey("key-" + k));
                }
                pg.send(queue, events);
                try {
                    Thread.sleep(50); // paces the producer (rate shaping), not a wait for anything
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }, "it-producer-" + queue);
        producer.start();
        return producer;
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the pipe's output topic the way a downstream consumer would: from the start, and with
 * {@code isolation.level=read_committed} when the pipe runs exactly once (records of aborted
 * source transactions must never count).
 */
final class OutputTopic {

    /** What the topic held, per key: the sequence numbers in partition order, duplicates included. */
    record Contents(Map<String, List<Integer>> byKey, long records) {
    }

    private final String bootstrapServers;
    private final String topic;
    private final boolean readCommitted;

    OutputTopic(String bootstrapServers, String topic, boolean readCommitted) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
        this.readCommitted = readCommitted;
    }

    /** Reads until {@code expected} distinct events were seen; fails after {@code timeout}. */
    void awaitDistinct(int expected, Duration timeout) {
        Set<String> seen = new HashSet<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = assignedFromStart()) {
            while (seen.size() < expected) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(seen.size() + " of " + expected + " events reached '" + topic + "' within " + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    seen.add(text(record.value()));
                }
            }
        }
    }

    /** Reads everything up to the current end (the last stable offset when read_committed). Call once the pipe is idle. */
    Contents readToEnd(Duration timeout) {
        Map<String, List<Integer>> byKey = new HashMap<>();
        long records = 0;
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = assignedFromStart()) {
            Set<TopicPartition> partitions = consumer.assignment();
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read '" + topic + "' to its end within " + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    String value = text(record.value());
                    String key = text(record.key());
                    if (!value.startsWith(key + ":")) {
                        throw new AssertionError("record " + value + " arrived with key " + key);
                    }
                    byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(Integer.parseInt(value.substring(key.length() + 1)));
                    records++;
                }
            }
        }
        return new Contents(byKey, records);
    }

    /** Records in the topic, counting aborted ones and transaction markers: a cheap progress figure. */
    long endOffsetsSum() {
        try (KafkaConsumer<byte[], byte[]> consumer = assignedFromStart()) {
            return consumer.endOffsets(consumer.assignment()).values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private KafkaConsumer<byte[], byte[]> assignedFromStart() {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(bootstrapServers, props);
        List<TopicPartition> partitions = new ArrayList<>();
        consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return consumer;
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
    }
}

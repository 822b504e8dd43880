/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import io.pgque.client.PgQue;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Delayed delivery across the whole pipe, on real Connect workers: keyed records into topic
 * {@code in}, some with a {@code deliver-at} header → the sink holds those in PostgreSQL → the
 * source's ticker duty moves them into the queue once due → topic {@code out}. No record reaches
 * {@code out} before its due time, and each key's records come out in order (their due times
 * increase with their offsets).
 */
class DelayedDeliveryIT {

    private static final String HEADER = "deliver-at";
    private static final int KEYS = 8;
    private static final int PER_KEY = 6;
    private static final int SLOTS = 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private static OwnPostgres postgres;
    private static Pipeline pipe;

    @BeforeAll
    static void start() throws Exception {
        postgres = OwnPostgres.start();
        String url = postgres.createDatabase("delayed_pipe");
        PgQue.using(postgres.dataSource("delayed_pipe")).queues().create(Pipeline.QUEUE);
        pipe = new Pipeline("delayed-pipe", 1, url, false, SLOTS);
    }

    @AfterAll
    static void stop() throws Exception {
        if (pipe != null) {
            pipe.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void recordsAskingToWaitLeaveThePipeNoEarlierThanDueEachKeyInOrder() throws Exception {
        Map<String, String> sink = pipe.sinkConfig(1);
        sink.put("pgque.delay.header", HEADER);
        pipe.connect.configureConnector(Pipeline.SOURCE, pipe.sourceConfig(1));
        pipe.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(Pipeline.SOURCE, 1, "source running");
        pipe.connect.configureConnector(Pipeline.SINK, sink);
        pipe.awaitRunning(1);

        // Per key: seq 0 and 1 at once, 2..5 held, due 3 s from now and then 200 ms apart (so the
        // due times increase with the offsets); the due time, in millis, is in the value.
        long base = Instant.now().plusSeconds(3).toEpochMilli();
        Map<String, Long> dueOf = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> producer = KafkaClients.producer(pipe.bootstrapServers(), Map.of("acks", "all"))) {
            for (int seq = 0; seq < PER_KEY; seq++) {
                for (int k = 0; k < KEYS; k++) {
                    String key = "key-" + k;
                    long due = seq < 2 ? 0 : base + 200L * (seq - 2) + k;
                    String value = key + ":" + seq;
                    ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(Pipeline.IN, bytes(key), bytes(value));
                    if (due > 0) {
                        // Every other key names its time in ISO-8601, the others in epoch milliseconds.
                        String header = k % 2 == 0 ? Long.toString(due) : Instant.ofEpochMilli(due).toString();
                        record.headers().add(HEADER, bytes(header));
                    }
                    dueOf.put(value, due);
                    producer.send(record);
                }
            }
            producer.flush();
        }

        Map<String, List<Integer>> byKey = new HashMap<>();
        Map<String, Integer> partitionOfKey = new HashMap<>();
        int read = 0;
        int total = KEYS * PER_KEY;
        Map<String, Object> props = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "delayed-check",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(pipe.bootstrapServers(), props)) {
            consumer.subscribe(List.of(Pipeline.OUT));
            while (read < total) {
                assertTrue(System.nanoTime() < deadline, read + " of " + total + " records reached '" + Pipeline.OUT + "'");
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    long polled = System.currentTimeMillis();
                    String key = text(record.key());
                    String value = text(record.value());
                    long due = dueOf.get(value);
                    assertFalse(polled < due, value + " reached '" + Pipeline.OUT + "' before its due time");
                    assertFalse(record.timestamp() < due, value + " entered the queue before its due time");
                    Integer previous = partitionOfKey.putIfAbsent(key, record.partition());
                    assertTrue(previous == null || previous == record.partition(), key + " in two partitions");
                    byKey.computeIfAbsent(key, x -> new ArrayList<>()).add(Integer.parseInt(value.substring(key.length() + 1)));
                    read++;
                }
            }
        }
        List<Integer> inOrder = List.of(0, 1, 2, 3, 4, 5);
        for (int k = 0; k < KEYS; k++) {
            assertEquals(inOrder, byKey.get("key-" + k), "key-" + k + ": every record once, in order");
        }
        assertEquals(0, heldEvents(), "nothing left held");
    }

    private static long heldEvents() throws Exception {
        try (var c = postgres.dataSource("delayed_pipe").getConnection(); var s = c.createStatement();
             var rs = s.executeQuery("select count(*) from pgque.delayed_events")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
    }
}

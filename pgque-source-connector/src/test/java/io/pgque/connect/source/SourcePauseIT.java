/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.Event;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code pgque.failure.policy=pause} in a real Connect cluster, exactly-once: a poison event in
 * the middle of one key's stream (a payload that is not JSON, under {@code pgque.value.format=json})
 * holds back that key only; every other key, of the same slot too, keeps reaching Kafka; after
 * the operator's action the key resumes in order. The operator gives up on the event (it goes to
 * the dead letters) or fixes the connector's configuration and replays it. A {@code read_committed}
 * consumer sees every other event once, in per-key order.
 */
class SourcePauseIT {

    private static final int KEYS = 6;
    private static final String POISONED = "key-2";
    private static final Pattern SEQ = Pattern.compile("seq\\D*(\\d+)");
    private static ConnectFixture fixture;

    @BeforeAll
    static void start() {
        fixture = new ConnectFixture("pgque-source-pause-it", 1, Map.of("exactly.once.source.support", "enabled"));
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void aPoisonEventHoldsBackItsKeyOnlyUntilTheOperatorDeadLettersIt() throws Exception {
        String name = "paused-dead";
        startConnector(name);
        send(name, 0, 10, 5);
        awaitTopic(name, "every key but " + POISONED + " whole, " + POISONED + " up to the poison", byKey ->
                byKey.equals(expected(0, 10, List.of(5), 5)));
        Map<String, Object> blocked = blockedKey(name);
        assertTrue(String.valueOf(blocked.get("reason")).contains("is not JSON"), blocked.toString());

        // The other keys keep flowing; the poisoned key's new events are set aside.
        send(name, 10, 15, -1);
        awaitTopic(name, "the other keys' new events while " + POISONED + " waits", byKey ->
                byKey.equals(expected(0, 15, List.of(5), 5)));
        QueueFixture.await("the new events set aside", ConnectFixture.DELIVERY_TIMEOUT, () ->
                fixture.pg.queryLong("select set_aside from pgque.blocked_keys(?, ?)", name, name) == 9);

        fixture.pg.execute("select pgque.dead_letter_blocked_key('" + name + "', '" + name + "', '" + POISONED
                + "', 'operator: cannot be fixed')");
        awaitTopic(name, POISONED + " resumed in order, without the poison", byKey ->
                byKey.equals(expected(0, 15, List.of(5), Integer.MAX_VALUE)));
        assertEquals(1, fixture.pg.queryLong("select count(*) from pgque.dlq_inspect(?) where ev_extra1 = ?"
                + " and dl_reason = 'operator: cannot be fixed'", name, POISONED));
        assertEquals(0, fixture.pg.queryLong("select count(*) from pgque.blocked_keys(?, ?)", name, name));
        fixture.connect.deleteConnector(name);
    }

    @Test
    void aPoisonEventReplayedAfterAFixComesInItsPlace() throws Exception {
        String name = "paused-fixed";
        Map<String, String> config = startConnector(name);
        send(name, 0, 8, 3);
        awaitTopic(name, POISONED + " held back at its poison", byKey -> byKey.equals(expected(0, 8, List.of(3), 3)));
        blockedKey(name);

        // The fix: a value format that takes any payload. The tasks restart with it; the event is
        // retried at once instead of at its retry time.
        config.put("pgque.value.format", "string");
        fixture.connect.configureConnector(name, config);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, name + " did not restart");
        assertEquals(1, fixture.pg.queryLong("select pgque.retry_blocked_key(?, ?, ?)", name, name, POISONED));
        awaitTopic(name, POISONED + " resumed in order, the replayed event in its place", byKey ->
                byKey.equals(expected(0, 8, List.of(), Integer.MAX_VALUE)));
        assertEquals(0, fixture.pg.queryLong("select count(*) from pgque.blocked_keys(?, ?)", name, name));
        assertEquals(0, fixture.pg.queryLong("select count(*) from pgque.dlq_inspect(?)", name));
        fixture.connect.deleteConnector(name);
    }

    /** validate() accepts pause where the engine has it, and names the key where an older engine has not. */
    @Test
    void validateNamesAnEngineWithoutThePausePolicy() {
        Map<String, String> config = fixture.connectorConfig("paused-validate", "paused_validate", 2, 1);
        fixture.pg.createQueue("paused_validate");
        config.put("pgque.failure.policy", "pause");
        assertEquals(0, fixture.connect.validateConnectorConfig("PgQueSourceConnector", config).errorCount());

        QueueFixture older = new QueueFixture("source_pause_older_engine");
        older.createQueue("paused_validate");
        older.execute("drop function pgque.pause_partitioned(text, text, int, int, text, pgque.message, interval, text)");
        config.put("connection.url", older.jdbcUrl());
        List<String> errors = new ArrayList<>();
        for (ConfigInfo info : fixture.connect.validateConnectorConfig("PgQueSourceConnector", config).configs()) {
            if (info.configValue() != null && "pgque.failure.policy".equals(info.configValue().name())) {
                errors.addAll(info.configValue().errors());
            }
        }
        assertTrue(errors.stream().anyMatch(e -> e.contains("pgque.failure.policy=pause needs an engine with the pause "
                + "policy (pgque.pause_partitioned)")), errors.toString());
        config.put("pgque.failure.policy", "skip");
        assertEquals(0, fixture.connect.validateConnectorConfig("PgQueSourceConnector", config).errorCount());
    }

    private static Map<String, String> startConnector(String name) throws InterruptedException {
        fixture.pg.createQueue(name);
        fixture.connect.kafka().createTopic(name, 2);
        Map<String, String> config = fixture.connectorConfig(name, name, 2, 2);
        config.put("pgque.ticker.enabled", "true");
        config.put("pgque.maint.retry.interval.ms", "200");
        config.put("pgque.value.format", "json");
        config.put("pgque.failure.policy", "pause");
        ConnectFixture.exactlyOnce(config);
        config.put("pgque.lease.ttl.ms", "3000");
        fixture.connect.configureConnector(name, config);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, name + " did not start");
        return config;
    }

    /**
     * Events {@code from..to-1} of every key, one transaction per sequence number (key by key in
     * turn); the poisoned key's event {@code poison} is not JSON.
     */
    private static void send(String queue, int from, int to, int poison) {
        for (int seq = from; seq < to; seq++) {
            List<Event> round = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                String key = "key-" + k;
                String payload = key.equals(POISONED) && seq == poison ? "not json, seq " + seq
                        : "{\"k\":\"" + key + "\",\"seq\":" + seq + "}";
                round.add(Event.of("order", payload).withPartitionKey(key));
            }
            fixture.pg.send(queue, round);
        }
    }

    /**
     * Per key, {@code from..to-1}: without the {@code missing} ones for the poisoned key, and for it
     * only those before {@code upTo}.
     */
    private static Map<String, List<Integer>> expected(int from, int to, List<Integer> missing, int upTo) {
        Map<String, List<Integer>> byKey = new TreeMap<>();
        for (int k = 0; k < KEYS; k++) {
            String key = "key-" + k;
            List<Integer> seqs = new ArrayList<>();
            for (int seq = from; seq < to; seq++) {
                if (!key.equals(POISONED) || seq < upTo && !missing.contains(seq)) {
                    seqs.add(seq);
                }
            }
            byKey.put(key, seqs);
        }
        return byKey;
    }

    private static Map<String, Object> blockedKey(String name) throws InterruptedException {
        AtomicReference<Map<String, Object>> row = new AtomicReference<>();
        QueueFixture.await(POISONED + " to be blocked", ConnectFixture.DELIVERY_TIMEOUT, () -> {
            List<Map<String, Object>> rows = fixture.pg.rows("select * from pgque.blocked_keys(?, ?)", name, name);
            row.set(rows.isEmpty() ? null : rows.get(0));
            return rows.size() == 1 && POISONED.equals(rows.get(0).get("partition_key"));
        });
        return row.get();
    }

    /** Waits until what a read_committed consumer sees of the topic, per key in order, passes {@code check}. */
    private static void awaitTopic(String topic, String what,
                                   java.util.function.Predicate<Map<String, List<Integer>>> check) {
        AtomicReference<Map<String, List<Integer>>> last = new AtomicReference<>();
        try {
            QueueFixture.await(what, ConnectFixture.DELIVERY_TIMEOUT, () -> {
                last.set(committed(topic));
                return check.test(last.get());
            });
        } catch (AssertionError | InterruptedException e) {
            throw new AssertionError(e.getMessage() + "; the topic holds " + last.get(), e);
        }
    }

    /** Every committed record of the topic, per key, the sequence numbers in partition order. */
    private static Map<String, List<Integer>> committed(String topic) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, List<Integer>> byKey = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = fixture.connect.kafka().createConsumer(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    String value = new String(record.value(), StandardCharsets.UTF_8);
                    Matcher m = SEQ.matcher(value);
                    assertTrue(m.find(), "no sequence number in " + value);
                    byKey.computeIfAbsent(new String(record.key(), StandardCharsets.UTF_8), k -> new ArrayList<>())
                            .add(Integer.parseInt(m.group(1)));
                }
            }
        }
        return byKey;
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.client.Event;
import io.pgque.connect.source.offsets.SourceOffsets;
import io.pgque.testing.PluginMetricsJmx;
import io.pgque.testsupport.LogCapture;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.apache.kafka.connect.runtime.rest.errors.ConnectRestException;
import org.apache.kafka.connect.storage.StringConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connector in a real Connect cluster (one KRaft broker, one worker, in this JVM) reading a
 * real PostgreSQL. One cluster for the whole class: it is the slow part.
 */
class SourceConnectorIT {

    private static final String SESSIONS = "select %s from pg_stat_activity where datname = current_database() "
            + "and application_name like 'pgque-source-flaky-src%'";
    private static final Duration DELIVERY_TIMEOUT = ConnectFixture.DELIVERY_TIMEOUT;
    private static ConnectFixture fixture;
    private static EmbeddedConnectCluster connect;
    private static QueueFixture pg;

    @BeforeAll
    static void start() {
        fixture = new ConnectFixture("pgque-source-it", 1, Map.of());
        connect = fixture.connect;
        pg = fixture.pg;
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    /** (a) Every event arrives, and per key the order in Kafka is the send order. */
    @Test
    void everyEventArrivesInPerKeyOrderThroughTwoTasksAndFourSlots() throws Exception {
        String queue = "orders";
        pg.createQueue(queue);
        connect.kafka().createTopic("orders", 3);
        Map<String, String> config = fixture.connectorConfig("orders-src", queue, 4, 2);
        config.put("pgque.ticker.enabled", "true");
        connect.configureConnector("orders-src", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("orders-src", 2, "source did not start");

        int keys = 200;
        int perKey = 100;
        fixture.sendInterleaved(queue, keys, perKey, 500);

        Map<String, List<Integer>> byKey = fixture.readPerKey("orders", keys * perKey);
        fixture.assertPerKeyOrder(byKey, keys, perKey);
        QueueFixture.await("the tasks' plugin metrics to count every acked record", DELIVERY_TIMEOUT,
                () -> PluginMetricsJmx.sum("orders-src", "records-acked-total") >= keys * perKey);
        connect.deleteConnector("orders-src");
    }

    /**
     * pgque.value.format=envelope through JsonConverter with schemas.enable=true: a consumer reads
     * the declared schema and every part of each event, the payload as text.
     */
    @Test
    void envelopeValuesAndTheChosenHeadersReachAKafkaConsumer() throws Exception {
        String queue = "envelopes";
        startOneTaskSource("envelope-src", queue, Map.of("pgque.value.format", "envelope",
                "value.converter", "org.apache.kafka.connect.json.JsonConverter",
                "value.converter.schemas.enable", "true",
                // Only what this consumer reads; an extra still only when the event has it.
                "pgque.headers", "pgque.event.id, pgque.extra3"));

        pg.send(queue, List.of(
                new Event("invoice.paid", "{\"amount\":12.5}", "tenant-1", null, "trace-7", null),
                Event.of("note", "plain text, not JSON").withPartitionKey("tenant-2")));

        ObjectMapper json = new ObjectMapper();
        Map<String, JsonNode> byKey = new HashMap<>();
        Map<String, List<String>> headersByKey = new HashMap<>();
        for (Map.Entry<String, ConsumerRecord<byte[], byte[]>> e : readByKey(queue, 2).entrySet()) {
            byKey.put(e.getKey(), json.readTree(e.getValue().value()));
            List<String> headers = new ArrayList<>();
            e.getValue().headers().forEach(h -> headers.add(h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8)));
            headersByKey.put(e.getKey(), headers);
        }
        JsonNode paid = byKey.get("tenant-1");
        assertEquals("io.pgque.Event", paid.at("/schema/name").asText(), paid.toString());
        assertEquals(1, paid.at("/schema/version").asInt());
        List<String> fields = new ArrayList<>();
        paid.at("/schema/fields").forEach(f -> fields.add(f.get("field").asText()));
        assertEquals(List.of("id", "type", "payload", "time", "extra1", "extra2", "extra3", "extra4", "retry_count"), fields);
        JsonNode event = paid.get("payload");
        assertTrue(event.get("id").asLong() > 0, event.toString());
        assertEquals("invoice.paid", event.get("type").asText());
        assertEquals("{\"amount\":12.5}", event.get("payload").asText(), "the payload is the text as sent");
        assertTrue(Math.abs(System.currentTimeMillis() - event.get("time").asLong()) < DELIVERY_TIMEOUT.toMillis(),
                "time is the event's epoch milliseconds: " + event);
        assertEquals("tenant-1", event.get("extra1").asText());
        assertTrue(event.get("extra2").isNull(), event.toString());
        assertEquals("trace-7", event.get("extra3").asText());
        assertEquals(0, event.get("retry_count").asInt());
        assertEquals("plain text, not JSON", byKey.get("tenant-2").at("/payload/payload").asText(),
                "any payload fits, JSON or not");
        assertEquals(List.of("pgque.event.id=" + event.get("id").asLong(), "pgque.extra3=trace-7"),
                headersByKey.get("tenant-1"));
        assertEquals(List.of("pgque.event.id=" + byKey.get("tenant-2").at("/payload/id").asLong()),
                headersByKey.get("tenant-2"));
        connect.deleteConnector("envelope-src");
    }

    /**
     * pgque.value.format=bytes through ByteArrayConverter: Kafka holds each payload's UTF-8 bytes,
     * what StringConverter writes for the text, multi-byte characters and all; and validate refuses
     * the two pairings of format and converter that would garble or fail every record.
     */
    @Test
    void bytesValuesReachKafkaAsThePayloadsUtf8AndMismatchedConvertersAreRefused() throws Exception {
        String queue = "payload_bytes";
        startOneTaskSource("bytes-src", queue, Map.of("pgque.value.format", "bytes",
                "value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter"));

        Map<String, String> sent = Map.of("k-1", "{\"name\":\"J\u00fcrgen \u65e5\u672c \uD83D\uDE00\"}",
                "k-2", "plain text, not JSON", "k-3", "");
        List<Event> events = new ArrayList<>();
        sent.forEach((key, payload) -> events.add(Event.of("t", payload).withPartitionKey(key)));
        events.add(Event.of("t", null).withPartitionKey("k-null"));
        pg.send(queue, events);

        Map<String, byte[]> byKey = new HashMap<>();
        readByKey(queue, events.size()).forEach((key, record) -> byKey.put(key, record.value()));
        sent.forEach((key, payload) -> assertArrayEquals(payload.getBytes(StandardCharsets.UTF_8), byKey.get(key),
                "the payload of " + key + " as UTF-8"));
        assertNull(byKey.get("k-null"), "an event without a payload is a record without a value");
        connect.deleteConnector("bytes-src");

        Map<String, String> asText = fixture.connectorConfig("bytes-src", queue, 1, 1);
        asText.put("pgque.value.format", "bytes");
        asText.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        assertError(asText, "pgque.value.format", "would write as \"[B@...\"");
        Map<String, String> textAsBytes = fixture.connectorConfig("bytes-src", queue, 1, 1);
        textAsBytes.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        assertError(textAsBytes, "pgque.value.format", "set pgque.value.format=bytes");
    }

    /** (b) With fewer tasks than slots, slots that get no events still move, so none pins rotation. */
    @Test
    void idleSlotsKeepMovingWhenTasksAreFewerThanSlots() throws Exception {
        String queue = "sparse";
        int n = 4;
        pg.createQueue(queue);
        connect.kafka().createTopic("sparse", 1);
        Map<String, String> config = fixture.connectorConfig("sparse-src", queue, n, 2);
        config.put("pgque.ticker.enabled", "true");
        connect.configureConnector("sparse-src", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("sparse-src", 2, "source did not start");

        // Every event goes to slot 0; slots 1..3 see the same ticks but never an event.
        List<String> keys = pg.keysOnSlot("only-zero", 0, n, 5);
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String key = keys.get(i % keys.size());
            events.add(Event.of("sparse", key + ":" + (i / keys.size())).withPartitionKey(key));
        }
        pg.send(queue, events);

        fixture.readPerKey("sparse", events.size());
        QueueFixture.await("every slot's pending events back to 0", DELIVERY_TIMEOUT, () -> {
            for (int slot = 0; slot < n; slot++) {
                if (pg.pendingEvents(queue, "sparse-src", slot) != 0) {
                    return false;
                }
            }
            return true;
        });
        connect.deleteConnector("sparse-src");
    }

    /**
     * tasks.max above N is accepted (Connect lets a connector run fewer tasks than tasks.max):
     * the connector runs one task per slot. So shrinking N is a change of pgque.slots alone.
     */
    @Test
    void moreTasksThanSlotsRunsOneTaskPerSlot() throws Exception {
        String name = "wide-src";
        pg.createQueue(name);
        connect.kafka().createTopic(name, 2);
        Map<String, String> config = fixture.connectorConfig(name, name, 4, 4);
        config.put("pgque.ticker.enabled", "true");
        connect.configureConnector(name, config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 4, "one task per slot");

        config.put("pgque.slots", "2");
        connect.configureConnector(name, config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2,
                "pgque.slots lowered to 2 with tasks.max=4 left as it was: two tasks");
        fixture.sendInterleaved(name, 8, 5, 40);
        fixture.assertPerKeyOrder(fixture.readPerKey(name, 40), 8, 5);
        connect.deleteConnector(name);
    }

    /** (c) validate() accepts another N (a resize) and more tasks than slots, reports typing errors in the connection, a missing queue, missing rights and unbacked exactly_once, each under its key. */
    @Test
    void validateAcceptsAnotherNAndReportsIdleTasksAndUnknownQueue() {
        String queue = "pinned";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, "pinned-src", 4, "setup").subscribe();

        Map<String, String> good = fixture.connectorConfig("pinned-src", queue, 4, 2);
        assertEquals(0, connect.validateConnectorConfig("PgQueSourceConnector", good).errorCount(),
                "a good config has no errors");

        Map<String, String> otherN = fixture.connectorConfig("pinned-src", queue, 3, 2);
        assertEquals(0, connect.validateConnectorConfig("PgQueSourceConnector", otherN).errorCount(),
                "another N is no error: the connector resizes the consumer");

        Map<String, String> moreTasks = fixture.connectorConfig("pinned-src", queue, 4, 6);
        assertEquals(0, connect.validateConnectorConfig("PgQueSourceConnector", moreTasks).errorCount(),
                "tasks.max above N is accepted: the connector runs N tasks (see moreTasksThanSlotsRunsOneTaskPerSlot)");

        Map<String, String> noDatabase = fixture.connectorConfig("pinned-src", queue, 4, 2);
        noDatabase.put("connection.url", "jdbc:postgresql://127.0.0.1:" + pg.db.port() + "/source_it_no_such_db?user=postgres");
        assertError(noDatabase, "connection.url", "Database 'source_it_no_such_db' does not exist");
        Map<String, String> unknownHost = fixture.connectorConfig("pinned-src", queue, 4, 2);
        unknownHost.put("connection.url", "jdbc:postgresql://no-such-host.invalid:5432/app");
        assertError(unknownHost, "connection.url", "Unknown host 'no-such-host.invalid'");

        Map<String, String> unknown = fixture.connectorConfig("pinned-src", "no_such_queue", 4, 2);
        assertError(unknown, "pgque.queue", "does not exist");

        // A login role without any pgque role: it may connect, but not consume, nor tick.
        pg.execute("do $$ begin if not exists (select 1 from pg_roles where rolname = 'source_it_nobody') "
                + "then create role source_it_nobody login; end if; end $$");
        Map<String, String> powerless = fixture.connectorConfig("pinned-src", queue, 4, 2);
        powerless.put("connection.url", pg.db.jdbcUrl("source_it_nobody"));
        powerless.put("pgque.ticker.enabled", "true");
        assertError(powerless, "connection.user", "cannot consume");
        assertError(powerless, "pgque.ticker.enabled", "needs pgque_ticker");

        // This worker has no exactly-once support, and the connector must not pretend otherwise.
        Map<String, String> exactlyOnce = fixture.connectorConfig("pinned-src", queue, 4, 2);
        exactlyOnce.put("pgque.delivery.guarantee", "exactly_once");
        assertError(exactlyOnce, "pgque.delivery.guarantee", "exactly.once.support=required");
        exactlyOnce.put("exactly.once.support", "required");
        assertError(exactlyOnce, "exactly.once.support", "does not have exactly-once source support enabled");
    }

    /**
     * validate() accepts a queue whose other partitioned consumers nobody reads, and warns in the
     * worker's log about each one no lease has held for over an hour (here its slots' lease
     * clocks are set back two hours), with the call that removes it; not about a consumer merely
     * without a holder for a moment, nor about the connector's own consumer.
     */
    @Test
    void validateWarnsAboutConsumersOfTheQueueNoLeaseHasHeldForAnHour() {
        String queue = "abandoned_q";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, "deleted-src", 2, "setup").subscribe();
        pg.pgque.slotConsumer(queue, "restarting-src", 2, "setup").subscribe();
        pg.pgque.slotConsumer(queue, "own-src", 2, "setup").subscribe();
        pg.execute("update pgque.partition_slot set lease_since = clock_timestamp() - interval '2 hours'"
                + " where co_name in ('deleted-src', 'own-src')");

        Map<String, String> config = fixture.connectorConfig("own-src", queue, 2, 2);
        List<ConfigInfos> results = new ArrayList<>();
        String log = LogCapture.during(() -> results.add(connect.validateConnectorConfig("PgQueSourceConnector", config)));
        assertEquals(0, results.get(0).errorCount(), "a warning, not an error");
        assertTrue(log.contains("queue 'abandoned_q' has partitioned consumer 'deleted-src', whose slots no task has held"
                + " for 120 minutes"), log);
        assertTrue(log.contains("select pgque.unsubscribe_partitioned('abandoned_q', 'deleted-src')"), log);
        assertFalse(log.contains("'restarting-src'"), "unleased for a moment only: " + log);
        assertFalse(log.contains("consumer 'own-src'"), "the connector's own consumer is its tasks' to take: " + log);

        pg.execute("select pgque.unsubscribe_partitioned('abandoned_q', 'deleted-src')");
        String after = LogCapture.during(() -> connect.validateConnectorConfig("PgQueSourceConnector", config));
        assertFalse(after.contains("deleted-src"), "gone once unsubscribed: " + after);
    }

    /** Fault: tasks.max goes from 2 to 4 while events flow; slots move to new tasks without loss or reordering. */
    @Test
    void reassigningSlotsMidStreamKeepsEveryEventAndPerKeyOrder() throws Exception {
        String queue = "rescale";
        pg.createQueue(queue);
        connect.kafka().createTopic("rescale", 3);
        Map<String, String> config = fixture.connectorConfig("rescale-src", queue, 4, 2);
        config.put("pgque.ticker.enabled", "true");
        connect.configureConnector("rescale-src", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("rescale-src", 2, "source did not start");

        int keys = 50;
        int perKey = 60;
        Thread producer = new Thread(() -> fixture.sendInterleaved(queue, keys, perKey, 100), "it-producer");
        producer.start();
        config.put("tasks.max", "4");
        connect.configureConnector("rescale-src", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("rescale-src", 4, "source did not rescale");
        producer.join(DELIVERY_TIMEOUT.toMillis());

        fixture.assertPerKeyOrder(fixture.readPerKey("rescale", keys * perKey), keys, perKey);
        connect.deleteConnector("rescale-src");
    }

    /** Fault: the database drops the connector's sessions, again and again, while events flow. */
    @Test
    void droppedDatabaseSessionsLoseNothingAndKeepOrder() throws Exception {
        String queue = "flaky";
        pg.createQueue(queue);
        connect.kafka().createTopic("flaky", 2);
        Map<String, String> config = fixture.connectorConfig("flaky-src", queue, 2, 1);
        config.put("pgque.ticker.enabled", "true");
        config.put("connection.backoff.ms", "200");
        connect.configureConnector("flaky-src", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("flaky-src", 1, "source did not start");

        int keys = 20;
        int rounds = 3;
        int perRound = 50;
        for (int round = 0; round < rounds; round++) {
            List<Event> events = new ArrayList<>();
            for (int seq = round * perRound; seq < (round + 1) * perRound; seq++) {
                for (int k = 0; k < keys; k++) {
                    events.add(Event.of("flaky", "key-" + k + ":" + seq).withPartitionKey("key-" + k));
                }
            }
            pg.send(queue, events);
            // The pools reconnect lazily; drop sessions only once the task is talking to the database again.
            QueueFixture.await("the connector to have database sessions", DELIVERY_TIMEOUT,
                    () -> pg.queryLong(SESSIONS.replace("%s", "count(*)")) > 0);
            assertTrue(pg.queryLong(SESSIONS.replace("%s", "count(pg_terminate_backend(pid))")) > 0);
        }
        fixture.assertPerKeyOrder(fixture.readPerKey("flaky", keys * rounds * perRound), keys, rounds * perRound);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("flaky-src", 1, "the task survived");
        connect.deleteConnector("flaky-src");
    }

    /**
     * (f) Connect's offsets REST API on an at-least-once connector, which resumes from its
     * consumer in PgQue: neither a PATCH nor a DELETE would change anything, so both are refused
     * with a 4xx (never "reset successfully", never a 500) that names the engine call to use;
     * that call, made as the message says, does rewind the slot. The exactly-once side:
     * SourceExactlyOnceIT.
     */
    @Test
    void anAtLeastOnceConnectorRefusesOffsetRequestsAndNamesTheCallThatRewindsASlot() throws Exception {
        String name = "offsets-src";
        String queue = "offsets";
        pg.createQueue(queue);
        connect.kafka().createTopic(queue, 1);
        Map<String, String> config = fixture.connectorConfig(name, queue, 1, 1);
        config.put("pgque.ticker.enabled", "true");
        connect.configureConnector(name, config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 1, "source did not start");
        long start = pg.queryLong("select max(tick_id) from pgque.tick t join pgque.queue q on q.queue_id = t.tick_queue "
                + "where q.queue_name = '" + queue + "'");
        pg.send(queue, List.of(Event.of("e", "first").withPartitionKey("k")));
        assertEquals(1, readByKey(queue, 1).size());
        fixture.awaitSlotsCaughtUp(queue, name, 1);
        connect.stopConnector(name);
        connect.assertions().assertConnectorIsStopped(name, "stopped for offset changes");

        ConnectRestException altered = assertThrows(ConnectRestException.class, () -> connect.alterConnectorOffsets(
                name, ConnectFixture.offsetsRequest(SourceOffsets.partition(queue, name, 0), SourceOffsets.offset(7, 70))));
        assertEquals(409, altered.statusCode(), altered.getMessage());
        assertTrue(altered.getMessage().contains("Refusing to alter the offsets")
                && altered.getMessage().contains("select pgque.reposition_slot('offsets', 'offsets-src', <slot>"),
                altered.getMessage());
        ConnectRestException reset = assertThrows(ConnectRestException.class, () -> connect.resetConnectorOffsets(name));
        assertEquals(409, reset.statusCode(), reset.getMessage());
        assertTrue(reset.getMessage().contains("Refusing to reset the offsets")
                && reset.getMessage().contains("(docs/source.md#rewind-or-skip-a-slot)"), reset.getMessage());
        fixture.awaitStoredOffsets(name, "the stored offset of slot 0, untouched", stored -> stored.size() == 1);

        // The runbook: with the connector stopped, its leases are released; move the slot back.
        QueueFixture.await("the stopped task's lease released", DELIVERY_TIMEOUT, () -> pg.queryLong(
                "select count(*) from pgque.partition_slot_status where queue_name = '" + queue
                        + "' and lease_owner is not null") == 0);
        assertEquals(start, pg.queryLong("select pgque.reposition_slot('" + queue + "', '" + name + "', 0, " + start + ")"));
        connect.resumeConnector(name);
        QueueFixture.await("the event read again after the rewind", DELIVERY_TIMEOUT, () -> fixture.recordCount(queue) == 2);
        connect.deleteConnector(name);
    }

    /** Queue and topic {@code queue}, and connector {@code name} on it with one slot, one task and the ticker, running. */
    private static void startOneTaskSource(String name, String queue, Map<String, String> settings)
            throws InterruptedException {
        pg.createQueue(queue);
        connect.kafka().createTopic(queue, 1);
        Map<String, String> config = fixture.connectorConfig(name, queue, 1, 1);
        config.put("pgque.ticker.enabled", "true");
        config.putAll(settings);
        connect.configureConnector(name, config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 1, "source did not start");
    }

    /** The first {@code count} keys' records of {@code topic} (the last record of each key), read from the start. */
    private static Map<String, ConsumerRecord<byte[], byte[]>> readByKey(String topic, int count) {
        Map<String, ConsumerRecord<byte[], byte[]>> byKey = new HashMap<>();
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-by-key-" + topic);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        long deadline = System.nanoTime() + DELIVERY_TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = connect.kafka().createConsumerAndSubscribeTo(props, topic)) {
            while (byKey.size() < count) {
                assertTrue(System.nanoTime() < deadline, "only " + byKey.keySet() + " arrived in time");
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    byKey.put(new String(record.key(), StandardCharsets.UTF_8), record);
                }
            }
        }
        return byKey;
    }

    private static void assertError(Map<String, String> config, String key, String text) {
        ConfigInfos result = connect.validateConnectorConfig("PgQueSourceConnector", config);
        List<String> errors = new ArrayList<>();
        for (ConfigInfo info : result.configs()) {
            if (info.configValue() != null && key.equals(info.configValue().name())) {
                errors.addAll(info.configValue().errors());
            }
        }
        assertTrue(errors.stream().anyMatch(e -> e.contains(text)),
                "expected an error containing '" + text + "' under " + key + ", got " + errors);
    }
}

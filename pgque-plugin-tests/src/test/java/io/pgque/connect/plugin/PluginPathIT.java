/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.client.Batch;
import io.pgque.client.Event;
import io.pgque.client.Message;
import io.pgque.client.PgQue;
import io.pgque.testing.EmbeddedPg;
import jakarta.ws.rs.core.Response;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.connect.storage.StringConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The archives as an operator uses them: both unzipped into a fresh plugin.path folder, a Connect
 * worker (with a KRaft broker, in this JVM) that finds the connectors only there, and a real
 * PostgreSQL. The worker must list both plugins, and each must move data end to end, each under
 * a login role that has only the grants docs/operations.md asks for.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PluginPathIT {

    private static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(90);
    private static final String SINK_ROLE = "plugin_it_sink";
    private static final String SOURCE_ROLE = "plugin_it_source";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static EmbeddedConnectCluster connect;
    private static EmbeddedPg.TestDatabase db;
    private static PgQue pgque;

    @BeforeAll
    static void start() throws IOException {
        db = EmbeddedPg.newDatabase("plugin_it").installEngine();
        pgque = PgQue.using(db.superuser());
        createLogin(SINK_ROLE, "pgque_writer");
        createLogin(SOURCE_ROLE, "pgque_reader, pgque_ticker"); // ticker: the connector runs the ticker

        connect = Samples.startWorkerWithBothPlugins("pgque-plugin-it");
    }

    @AfterAll
    static void stop() {
        if (connect != null) {
            connect.stop();
        }
    }

    /** Guard for everything below: a connector found on the classpath would prove nothing about the archives. */
    @Test
    void connectorClassesAreNotOnTheTestClasspath() {
        List<String> classes = new ArrayList<>();
        PluginArchive.both().forEach(a -> classes.add(a.connectorClass()));
        classes.add("io.pgque.connect.common.version.BuildVersion");
        for (String name : classes) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName(name, false, getClass().getClassLoader()),
                    name + " is on the test classpath; this module may depend on the connectors' zips only");
        }
    }

    @Test
    void workerListsBothPluginsWithTheirVersionAndConfig() throws IOException {
        JsonNode plugins = get("connector-plugins");
        for (PluginArchive archive : PluginArchive.both()) {
            JsonNode plugin = null;
            for (JsonNode candidate : plugins) {
                if (archive.connectorClass().equals(candidate.path("class").asText())) {
                    plugin = candidate;
                }
            }
            assertTrue(plugin != null, archive.connectorClass() + " not listed by the worker: " + plugins);
            assertEquals(archive.connectType(), plugin.path("type").asText());
            assertEquals(Build.projectVersion(), plugin.path("version").asText());

            // The ConfigDef comes from the connector and pgque-connect-common, both from the archive.
            JsonNode config = get("connector-plugins/" + archive.connectorClass() + "/config");
            List<String> names = new ArrayList<>();
            config.forEach(key -> names.add(key.path("name").asText()));
            assertTrue(names.containsAll(List.of("connection.url", "connection.password", "pgque.queue")), names.toString());
        }
    }

    @Test
    void sourceMovesAQueueIntoATopicInPerKeyOrder() throws Exception {
        String queue = "plugin_source_q";
        String topic = "plugin-source-out";
        pgque.queues().create(queue);
        connect.kafka().createTopic(topic, 2);

        Map<String, String> config = new HashMap<>();
        config.put("connector.class", PluginArchive.SOURCE.connectorClass());
        config.put("tasks.max", "2");
        config.put("connection.url", db.jdbcUrl(SOURCE_ROLE));
        config.put("pgque.queue", queue);
        config.put("pgque.slots", "2");
        config.put("topic", topic);
        config.put("pgque.ticker.enabled", "true");
        config.put("pgque.poll.interval.ms", "100");
        config.put("key.converter", StringConverter.class.getName());
        config.put("value.converter", StringConverter.class.getName());
        connect.configureConnector("plugin-source", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("plugin-source", 2, "source did not start");

        int keys = 5;
        int perKey = 20;
        List<Event> events = new ArrayList<>();
        for (int seq = 0; seq < perKey; seq++) {
            for (int k = 0; k < keys; k++) {
                events.add(Event.of("order", "key-" + k + ":" + seq).withPartitionKey("key-" + k));
            }
        }
        pgque.producer().sendBatch(queue, events);

        Map<String, List<Integer>> byKey = new LinkedHashMap<>();
        for (ConsumerRecord<byte[], byte[]> record
                : connect.kafka().consume(keys * perKey, DELIVERY_TIMEOUT.toMillis(), topic)) {
            String key = new String(record.key(), StandardCharsets.UTF_8);
            String value = new String(record.value(), StandardCharsets.UTF_8);
            assertTrue(value.startsWith(key + ":"), "record key " + key + " carries " + value);
            byKey.computeIfAbsent(key, x -> new ArrayList<>()).add(sequence(value));
        }
        assertFirstDeliveriesInOrder(byKey, keys, perKey);
        connect.deleteConnector("plugin-source");
    }

    @Test
    void sinkMovesATopicIntoAQueueInPerKeyOrder() throws Exception {
        String topic = "plugin-sink-in";
        String queue = "plugin_sink_q";
        pgque.queues().create(queue);
        pgque.consumer().subscribe(queue, "plugin-it-reader");
        connect.kafka().createTopic(topic, 2);

        int keys = 5;
        int perKey = 20;
        for (int seq = 0; seq < perKey; seq++) {
            for (int k = 0; k < keys; k++) {
                connect.kafka().produce(topic, "key-" + k, "key-" + k + ":" + seq);
            }
        }

        Map<String, String> config = new HashMap<>();
        config.put("connector.class", PluginArchive.SINK.connectorClass());
        config.put("tasks.max", "2");
        config.put("topics", topic);
        config.put("connection.url", db.jdbcUrl(SINK_ROLE));
        config.put("pgque.queue", queue);
        config.put("pgque.payload.format", "string");
        config.put("key.converter", StringConverter.class.getName());
        config.put("value.converter", StringConverter.class.getName());
        connect.configureConnector("plugin-sink", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("plugin-sink", 2, "sink did not start");

        Map<String, List<Integer>> byKey = new LinkedHashMap<>();
        int received = 0;
        long deadline = System.nanoTime() + DELIVERY_TIMEOUT.toNanos();
        while (received < keys * perKey) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + received + " of " + keys * perKey + " records reached queue " + queue
                        + " within " + DELIVERY_TIMEOUT.toSeconds() + " s; sink tasks: " + taskStates("plugin-sink"));
            }
            pgque.operations().forceNextTick(queue);
            pgque.operations().ticker(queue);
            Optional<Batch> batch = pgque.consumer().receive(queue, "plugin-it-reader");
            if (batch.isEmpty()) {
                assertTrue(taskStates("plugin-sink").stream().noneMatch(t -> t.contains("FAILED")),
                        () -> "a sink task failed: " + taskStates("plugin-sink"));
                Thread.sleep(100); // nothing committed since the last tick: ask again shortly
                continue;
            }
            for (Message message : batch.get().messages()) {
                assertEquals(topic, message.type(), "ev_type defaults to the topic");
                assertTrue(message.payload().startsWith(message.partitionKey() + ":"),
                        "partition key " + message.partitionKey() + " carries " + message.payload());
                byKey.computeIfAbsent(message.partitionKey(), x -> new ArrayList<>()).add(sequence(message.payload()));
                received++;
            }
            pgque.consumer().ack(batch.get());
        }
        assertFirstDeliveriesInOrder(byKey, keys, perKey);
        connect.deleteConnector("plugin-sink");
    }

    private static int sequence(String value) {
        return Integer.parseInt(value.substring(value.lastIndexOf(':') + 1));
    }

    /** Every key complete; a replay (at least once) may repeat a suffix, never deliver out of order. */
    private static void assertFirstDeliveriesInOrder(Map<String, List<Integer>> byKey, int keys, int perKey) {
        assertEquals(keys, byKey.size(), "keys seen: " + byKey.keySet());
        Map<String, Integer> sent = new HashMap<>();
        byKey.keySet().forEach(key -> sent.put(key, perKey));
        KeyOrder.assertFirstDeliveriesInOrder(byKey, sent);
    }

    private static List<String> taskStates(String connector) {
        return connect.connectorStatus(connector).tasks().stream()
                .map(t -> "task " + t.id() + " " + t.state() + (t.trace() == null ? "" : ": " + t.trace()))
                .toList();
    }

    private static JsonNode get(String resource) throws IOException {
        Response response = connect.requestGet(connect.endpointForResource(resource));
        assertEquals(200, response.getStatus(), resource + ": " + response.getEntity());
        return JSON.readTree(String.valueOf(response.getEntity()));
    }

    private static void createLogin(String role, String grants) {
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + role + "') "
                    + "then create role " + role + " login; end if; end $$");
            s.execute("grant " + grants + " to " + role);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create role " + role + ": " + e.getMessage(), e);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.client.Message;
import io.pgque.testing.EmbeddedPg;
import org.apache.kafka.connect.converters.ByteArrayConverter;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.pgque.connect.sink.SinkCluster.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Records through a real Connect worker into a real queue: order, keys, every converter shape,
 * tombstones, dedup and templates. One cluster for the class; each test has its own topic,
 * queue and connector.
 */
class SinkDeliveryIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static SinkCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = new SinkCluster("sink-delivery", 1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Topic, queue and subscribed reader named after the test; the connector is not started yet. */
    private static QueueReader queueFor(String name, int partitions) {
        cluster.connect.kafka().createTopic(name, partitions);
        cluster.createQueue(name);
        return new QueueReader(cluster.superuser(), name, "test");
    }

    @Test
    void threePartitionsThroughTwoTasksArriveWithKeysInPerKeyOffsetOrder() throws Exception {
        String name = "round_trip";
        QueueReader reader = queueFor(name, 3);
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("tasks.max", "2");
        config.put("pgque.batch.max.records", "7"); // several statements per put, same transaction
        cluster.start(config, 2);

        int keys = 12;
        int perKey = 25;
        for (int seq = 0; seq < perKey; seq++) {
            for (int k = 0; k < keys; k++) {
                cluster.send(name, "key-" + k, "key-" + k + ":" + seq);
            }
        }
        cluster.flush();
        List<Message> messages = reader.awaitCount(keys * perKey, TIMEOUT);

        assertEquals(keys * perKey, messages.size(), "no failure happened, so no duplicate either");
        Map<String, List<Integer>> seqByKey = new LinkedHashMap<>();
        for (Message m : messages) {
            String[] parts = m.payload().split(":");
            assertEquals(parts[0], m.partitionKey(), "the record key is the partition key (extra1)");
            assertEquals(name, m.type(), "the event type defaults to the topic");
            seqByKey.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
        }
        assertEquals(keys, seqByKey.size());
        List<Integer> inOrder = new ArrayList<>();
        for (int seq = 0; seq < perKey; seq++) {
            inOrder.add(seq);
        }
        seqByKey.forEach((key, seqs) -> assertEquals(inOrder, seqs, "events of " + key + " in offset order"));
        cluster.connect.deleteConnector(name);
    }

    @Test
    void jsonWithSchemasBecomesTheStructAsJson() throws Exception {
        String name = "json_schemas";
        QueueReader reader = queueFor(name, 1);
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("value.converter", JsonConverter.class.getName());
        config.put("value.converter.schemas.enable", "true");
        config.put("pgque.payload.format", "json");
        cluster.start(config, 1);

        cluster.send(name, "k", "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int32\"},"
                + "{\"field\":\"name\",\"type\":\"string\"},{\"field\":\"tags\",\"type\":\"array\",\"items\":{\"type\":\"string\"}}]},"
                + "\"payload\":{\"id\":7,\"name\":\"Zoë\",\"tags\":[\"a\",\"b\"]}}");
        cluster.flush();
        Message m = reader.awaitCount(1, TIMEOUT).get(0);

        assertEquals(JSON.readTree("{\"id\":7,\"name\":\"Zoë\",\"tags\":[\"a\",\"b\"]}"), JSON.readTree(m.payload()));
        cluster.connect.deleteConnector(name);
    }

    @Test
    void schemalessJsonIsWrittenAsJson() throws Exception {
        String name = "json_plain";
        QueueReader reader = queueFor(name, 1);
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("value.converter", JsonConverter.class.getName());
        config.put("value.converter.schemas.enable", "false");
        config.put("pgque.payload.format", "json");
        cluster.start(config, 1);

        cluster.send(name, "k", "{\"b\":{\"c\":[1,2.5,null]},\"a\":true}");
        cluster.send(name, "k", "42");
        cluster.flush();
        List<Message> messages = reader.awaitCount(2, TIMEOUT);

        assertEquals(JSON.readTree("{\"b\":{\"c\":[1,2.5,null]},\"a\":true}"), JSON.readTree(messages.get(0).payload()));
        assertEquals("42", messages.get(1).payload());
        cluster.connect.deleteConnector(name);
    }

    @Test
    void stringValuesAreWrittenAsIsAndJsonStringsAreChecked() throws Exception {
        String name = "strings";
        QueueReader reader = queueFor(name, 1);
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        cluster.start(config, 1);

        cluster.send(name, "k", "plain text, ü, 😀, not JSON");
        cluster.send(name, "k", "  {\"kept\": \"verbatim\"}  ");
        cluster.flush();
        List<Message> messages = reader.awaitCount(2, TIMEOUT);

        assertEquals("plain text, ü, 😀, not JSON", messages.get(0).payload());
        assertEquals("  {\"kept\": \"verbatim\"}  ", messages.get(1).payload());
        cluster.connect.deleteConnector(name);
    }

    @Test
    void bytesBecomeBase64OrUtf8Json() throws Exception {
        String name = "bytes_b64";
        QueueReader reader = queueFor(name, 1);
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("key.converter", ByteArrayConverter.class.getName());
        config.put("value.converter", ByteArrayConverter.class.getName());
        config.put("pgque.payload.format", "base64");
        cluster.start(config, 1);
        byte[] binary = {0, 1, 2, (byte) 0xff, (byte) 0xfe, 10};
        byte[] key = {(byte) 0xca, (byte) 0xfe};
        cluster.send(name, null, key, binary, Map.of());
        cluster.flush();
        Message m = reader.awaitCount(1, TIMEOUT).get(0);
        assertArrayEquals(binary, Base64.getDecoder().decode(m.payload()), "NUL bytes survive as base64");
        assertEquals(Base64.getEncoder().encodeToString(key), m.partitionKey(), "a bytes key as base64");
        cluster.connect.deleteConnector(name);

        String jsonName = "bytes_json";
        QueueReader jsonReader = queueFor(jsonName, 1);
        Map<String, String> jsonConfig = cluster.sinkConfig(jsonName, jsonName, jsonName);
        jsonConfig.put("value.converter", ByteArrayConverter.class.getName());
        jsonConfig.put("pgque.payload.format", "json");
        cluster.start(jsonConfig, 1);
        cluster.send(jsonName, null, SinkCluster.bytes("k"), "{\"é\":[1]}".getBytes(StandardCharsets.UTF_8), Map.of());
        cluster.flush();
        assertEquals("{\"é\":[1]}", jsonReader.awaitCount(1, TIMEOUT).get(0).payload());
        cluster.connect.deleteConnector(jsonName);
    }

    @Test
    void tombstonesAreSkippedOrSentAsNullPayloads() throws Exception {
        String skip = "tomb_skip";
        QueueReader skipped = queueFor(skip, 1);
        cluster.start(cluster.sinkConfig(skip, skip, skip), 1);
        cluster.send(skip, "k", "before");
        cluster.send(skip, "k", null);
        cluster.send(skip, "k", "after");
        cluster.flush();
        List<Message> messages = skipped.awaitMessage(m -> "after".equals(m.payload()), TIMEOUT, "the record after the tombstone");
        assertEquals(List.of("before", "after"), messages.stream().map(Message::payload).toList());
        cluster.connect.deleteConnector(skip);

        String send = "tomb_send";
        QueueReader sent = queueFor(send, 1);
        Map<String, String> config = cluster.sinkConfig(send, send, send);
        config.put("pgque.tombstones", "send");
        cluster.start(config, 1);
        cluster.send(send, "k", "before");
        cluster.send(send, "k", null);
        cluster.send(send, "k", "after");
        cluster.flush();
        List<Message> all = sent.awaitCount(3, TIMEOUT);
        assertNull(all.get(1).payload(), "a tombstone is an event with NULL ev_data");
        assertEquals("k", all.get(1).partitionKey(), "and keeps its key, so consumers see the deletion in order");
        cluster.connect.deleteConnector(send);
    }

    @Test
    void dedupInsertsABurstOnceAndTheSameKeyAgainAfterTheWindow() throws Exception {
        String name = "dedup";
        QueueReader reader = queueFor(name, 1);
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("pgque.dedup.key", "order:${header:event-id}");
        long ttlMs = 3_000;
        config.put("pgque.dedup.ttl.ms", Long.toString(ttlMs));
        cluster.start(config, 1);

        for (int i = 0; i < 5; i++) {
            cluster.send(name, null, "k", "first-" + i, Map.of("event-id", "e1"));
            cluster.send(name, null, "k", "other-" + i, Map.of("event-id", "e2"));
        }
        cluster.send(name, null, "k", "marker", Map.of("event-id", "marker-1"));
        cluster.flush();
        List<Message> burst = reader.awaitMessage(m -> "marker".equals(m.payload()), TIMEOUT, "the marker");
        long seenAt = System.currentTimeMillis();
        assertEquals(List.of("first-0", "other-0", "marker"), burst.stream().map(Message::payload).toList(),
                "each dedup key once, the first record of the burst wins");
        assertEquals("order:e1", burst.get(0).idemKey(), "the dedup key is in extra2");

        // The key expires ttl after its claim, which committed before the marker was seen: once
        // that much time has passed, the same key must make a new event.
        SinkCluster.await(() -> System.currentTimeMillis() > seenAt + ttlMs + 500, "the dedup window to pass");
        cluster.send(name, null, "k", "first-again", Map.of("event-id", "e1"));
        cluster.flush();
        List<Message> all = reader.awaitMessage(m -> "first-again".equals(m.payload()), TIMEOUT, "the repeat after the window");
        assertEquals(4, all.size());
        cluster.connect.deleteConnector(name);
    }

    @Test
    void templatesRenderHeadersAndCoordinates() throws Exception {
        String name = "templates";
        QueueReader reader = queueFor(name, 2);
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("pgque.event.type", "${header:type}.v1");
        config.put("pgque.partition.key", "header:tenant");
        config.put("pgque.extra3", "${topic}/${partition}/${offset}");
        config.put("pgque.extra4", "${headers}");
        cluster.start(config, 1);

        cluster.send(name, 1, "ignored-key", "{}", Map.of("type", "OrderPlaced", "tenant", "t-9"));
        cluster.flush();
        Message m = reader.awaitCount(1, TIMEOUT).get(0);

        assertEquals("OrderPlaced.v1", m.type());
        assertEquals("t-9", m.partitionKey());
        assertEquals(name + "/1/0", m.extra3());
        JsonNode headers = JSON.readTree(m.extra4());
        assertEquals("OrderPlaced", headers.get("type").asText());
        assertEquals("t-9", headers.get("tenant").asText());
        cluster.connect.deleteConnector(name);
    }

    @Test
    void installsTheEngineAndCreatesTheQueueWhenAllowed() throws Exception {
        EmbeddedPg.TestDatabase fresh = EmbeddedPg.newDatabase("sink_fresh");
        String name = "fresh_db";
        cluster.connect.kafka().createTopic(name, 1);
        Map<String, String> config = cluster.sinkConfig(name, name, "created_by_sink");
        config.put("connection.url", fresh.jdbcUrl());
        config.put("pgque.schema.install", "if_missing");
        config.put("pgque.queue.auto.create", "true");
        cluster.start(config, 1);

        cluster.send(name, "k", "one");
        cluster.send(name, "k", "two");
        cluster.flush();
        // Nobody could subscribe before the queue existed, so read its event table directly.
        SinkCluster.await(() -> payloads(fresh, "created_by_sink").size() == 2, "two events in the created queue");
        assertEquals(List.of("one", "two"), payloads(fresh, "created_by_sink"));
        cluster.connect.deleteConnector(name);
    }

    private static List<String> payloads(EmbeddedPg.TestDatabase database, String queue) {
        try (Connection c = database.superuser().getConnection(); Statement s = c.createStatement()) {
            String table;
            try (ResultSet rs = s.executeQuery("select queue_data_pfx from pgque.queue where queue_name = '" + queue + "'")) {
                if (!rs.next()) {
                    return List.of();
                }
                table = rs.getString(1);
            } catch (java.sql.SQLException noEngineYet) {
                return List.of();
            }
            List<String> payloads = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("select ev_data from " + table + " order by ev_id")) {
                while (rs.next()) {
                    payloads.add(rs.getString(1));
                }
            }
            return payloads;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.client.Message;
import io.pgque.connect.sink.config.PgQueSinkConfig;
import io.pgque.connect.sink.convert.ConversionOutcome;
import io.pgque.connect.sink.convert.RecordConverter;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.connect.converters.ByteArrayConverter;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.pgque.connect.sink.SinkCluster.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * pgque.value.envelope=connect-json in a real Connect worker, reading with ByteArrayConverter what
 * JsonConverter wrote: the events hold what the Struct path would store, bad envelopes go to the
 * dead letter topic (or fail the task) with a reason naming the key, tombstones follow
 * pgque.tombstones, headers fill the templates, and validate() refuses a converter that parses the
 * value before the sink sees it.
 */
class SinkEnvelopeIT {

    private static final String REASON_HEADER = "__connect.errors.exception.message";
    private static final Schema ORDER = SchemaBuilder.struct().name("Order").optional()
            .field("id", Schema.INT64_SCHEMA)
            .field("price", Decimal.schema(2))
            .field("at", Timestamp.SCHEMA)
            .field("lines", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    private static final JsonConverter WRITER = new JsonConverter();
    private static SinkCluster cluster;

    @BeforeAll
    static void startCluster() {
        WRITER.configure(Map.of("schemas.enable", "true"), false);
        cluster = new SinkCluster("sink-envelope", 1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Map<String, String> envelopeConfig(String name) {
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("value.converter", ByteArrayConverter.class.getName());
        config.put("pgque.value.envelope", "connect-json");
        config.put("pgque.payload.format", "json");
        config.put("pgque.event.type", "${header:kind}");
        config.put("pgque.tombstones", "send");
        return config;
    }

    private static byte[] order(long id, String note) {
        Struct order = new Struct(ORDER).put("id", id).put("price", new BigDecimal("19.99"))
                .put("at", new java.util.Date(1_700_000_000_000L + id)).put("lines", List.of("book", "pen é"))
                .put("note", note);
        return WRITER.fromConnectData("t", ORDER, order);
    }

    /** What the sink stores for {@code envelope} with JsonConverter and no envelope key. */
    private static String structPath(byte[] envelope) {
        SchemaAndValue read = WRITER.toConnectData("t", envelope);
        RecordConverter converter = new RecordConverter(new PgQueSinkConfig(Map.of("connection.url",
                "jdbc:postgresql://localhost/x", "pgque.queue", "q")));
        ConversionOutcome outcome = converter.convert(new SinkRecord("t", 0, null, null, read.schema(), read.value(), 0));
        return ((ConversionOutcome.Converted) outcome).event().payload();
    }

    @Test
    void envelopesBecomeTheStructPathsEventsAndBadOnesGoToTheDeadLetterTopic() throws Exception {
        String name = "envelope_tolerated";
        String dlq = name + "_dlq";
        cluster.connect.kafka().createTopic(name, 1);
        cluster.createQueue(name);
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        cluster.start(SinkCluster.withDeadLetters(envelopeConfig(name), dlq), 1);

        byte[] first = order(1, "first");
        byte[] last = order(3, null);
        byte[] nullPayload = WRITER.fromConnectData("t", ORDER, null);
        cluster.send(name, 0, SinkCluster.bytes("k1"), first, Map.of("kind", "OrderPlaced"));
        cluster.send(name, 0, SinkCluster.bytes("k1"), SinkCluster.bytes("{\"id\":2}"), Map.of("kind", "Plain"));   // offset 1
        String badPayload = new String(order(2, "x"), StandardCharsets.UTF_8).replace("\"id\":2", "\"id\":\"two\"");
        cluster.send(name, 0, SinkCluster.bytes("k2"), SinkCluster.bytes(badPayload), Map.of("kind", "Bad"));      // offset 2
        cluster.send(name, 0, SinkCluster.bytes("k1"), null, Map.of("kind", "Deleted"));
        cluster.send(name, 0, SinkCluster.bytes("k1"), nullPayload, Map.of("kind", "NullPayload"));
        cluster.send(name, 0, SinkCluster.bytes("k3"), last, Map.of("kind", "OrderShipped"));
        cluster.flush();

        List<Message> messages = reader.awaitMessage(m -> "OrderShipped".equals(m.type()), TIMEOUT, "the last record");
        assertEquals(List.of("OrderPlaced", "Deleted", "NullPayload", "OrderShipped"),
                messages.stream().map(Message::type).toList());
        assertEquals(structPath(first), messages.get(0).payload());
        assertEquals("{\"id\":1,\"price\":19.99,\"at\":\"2023-11-14T22:13:20.001Z\",\"lines\":[\"book\",\"pen é\"],"
                + "\"note\":\"first\"}", messages.get(0).payload());
        assertNull(messages.get(1).payload(), "a tombstone, sent as pgque.tombstones=send says");
        assertNull(messages.get(2).payload(), "a null payload is a tombstone too");
        assertEquals(structPath(last), messages.get(3).payload());

        ConsumerRecords<byte[], byte[]> dead = cluster.connect.kafka().consume(2, TIMEOUT.toMillis(), dlq);
        List<String> reasons = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : dead) {
            Map<String, String> headers = SinkCluster.headers(record);
            reasons.add(headers.get("__connect.errors.offset") + ": " + headers.get(REASON_HEADER));
            assertTrue(Arrays.equals(record.value(), headers.get("__connect.errors.offset").equals("1")
                    ? SinkCluster.bytes("{\"id\":2}") : SinkCluster.bytes(badPayload)), "the record as it came");
        }
        reasons.sort(null);
        assertEquals(2, reasons.size(), reasons::toString);
        assertTrue(reasons.get(0).startsWith("1: ") && reasons.get(0).contains("pgque.value.envelope=connect-json")
                && reasons.get(0).contains("no \"schema\" member (is the topic written by JsonConverter with "
                + "schemas.enable=true?)"), reasons::toString);
        assertTrue(reasons.get(1).startsWith("2: ") && reasons.get(1).contains("pgque.value.envelope=connect-json")
                && reasons.get(1).contains("at /id is a string where its schema wants an int64"), reasons::toString);
        cluster.connect.deleteConnector(name);
    }

    @Test
    void withoutToleranceABadEnvelopeFailsTheTaskNamingTheKey() throws Exception {
        String name = "envelope_strict";
        cluster.connect.kafka().createTopic(name, 1);
        cluster.createQueue(name);
        cluster.start(envelopeConfig(name), 1);

        cluster.send(name, "k", "[1, 2]");
        cluster.flush();
        String trace = cluster.awaitFailedTaskTrace(name);

        assertTrue(trace.contains("Bad record at topic=" + name + ", partition=0, offset=0"), trace);
        assertTrue(trace.contains("pgque.value.envelope=connect-json") && trace.contains("not a JSON object"), trace);
        cluster.connect.deleteConnector(name);
    }

    @Test
    void validateRefusesAConverterThatParsesTheValueFirst() {
        cluster.createQueue("envelope_validated");
        Map<String, String> config = envelopeConfig("envelope_validated");
        config.put("value.converter", JsonConverter.class.getName());
        ConfigInfos infos = cluster.connect.validateConnectorConfig("PgQueSinkConnector", config);
        List<String> errors = new ArrayList<>();
        for (ConfigInfo info : infos.configs()) {
            info.configValue().errors().forEach(e -> errors.add(info.configValue().name() + ": " + e));
        }
        assertEquals(1, errors.size(), errors::toString);
        assertTrue(errors.get(0).startsWith("pgque.value.envelope: pgque.value.envelope=connect-json reads the "
                + "envelope's JSON text, but value.converter=org.apache.kafka.connect.json.JsonConverter"), errors::toString);
    }
}

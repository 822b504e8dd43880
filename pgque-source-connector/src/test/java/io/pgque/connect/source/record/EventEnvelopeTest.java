/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.client.Message;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class EventEnvelopeTest {

    private static final Instant CREATED = Instant.parse("2026-01-02T03:04:05.678Z");
    private static final Message EVENT = new Message(42, 7, "order.created", "{\"id\":1}", 2, CREATED,
            "customer-9", "idem-1", null, "x4");

    /** The schema is a contract with registries downstream: this pins every field, its type and optionality. */
    @Test
    void theSchemaIsTheDeclaredOne() {
        Schema schema = EventEnvelope.SCHEMA;
        assertEquals("io.pgque.Event", schema.name());
        assertEquals(1, schema.version());
        List<String> fields = schema.fields().stream()
                .map(f -> f.name() + ":" + f.schema().type() + (f.schema().isOptional() ? "?" : "")
                        + (f.schema().name() == null ? "" : "(" + f.schema().name() + ")"))
                .collect(Collectors.toList());
        assertEquals(List.of("id:INT64", "type:STRING?", "payload:STRING?", "time:INT64?(" + Timestamp.LOGICAL_NAME + ")",
                "extra1:STRING?", "extra2:STRING?", "extra3:STRING?", "extra4:STRING?", "retry_count:INT32"), fields);
        for (Field field : schema.fields()) {
            assertEquals(true, field.schema().doc() != null && !field.schema().doc().isBlank(),
                    "field " + field.name() + " is documented");
        }
    }

    @Test
    void everyPartOfTheEventIsInTheStruct() {
        SchemaAndValue value = new EventEnvelope().valueOf(EVENT, () -> "event 42");
        Struct struct = (Struct) value.value();
        struct.validate();
        assertEquals(EventEnvelope.SCHEMA, value.schema());
        assertEquals(42L, struct.getInt64("id"));
        assertEquals("order.created", struct.getString("type"));
        assertEquals("{\"id\":1}", struct.getString("payload"));
        assertEquals(Date.from(CREATED), struct.get("time"));
        assertEquals("customer-9", struct.getString("extra1"));
        assertEquals("idem-1", struct.getString("extra2"));
        assertNull(struct.getString("extra3"));
        assertEquals("x4", struct.getString("extra4"));
        assertEquals(2, struct.getInt32("retry_count"));
    }

    /** What a consumer of JsonConverter with schemas.enable=true reads: the schema and the event, payload as text. */
    @Test
    void jsonConverterWithSchemasWritesTheSchemaAndTheEvent() throws Exception {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "true"), false);
        SchemaAndValue value = new EventEnvelope().valueOf(
                new Message(5, 1, null, null, 0, null, null, null, null, null), () -> "event 5");
        JsonNode json = new ObjectMapper().readTree(converter.fromConnectData("t", value.schema(), value.value()));
        assertEquals("io.pgque.Event", json.at("/schema/name").asText());
        assertEquals(5, json.at("/payload/id").asLong());
        assertEquals(true, json.at("/payload/payload").isNull(), "a NULL payload stays null: " + json);
        assertEquals(true, json.at("/payload/time").isNull(), json.toString());

        SchemaAndValue full = new EventEnvelope().valueOf(EVENT, () -> "event 42");
        byte[] bytes = converter.fromConnectData("t", full.schema(), full.value());
        JsonNode read = new ObjectMapper().readTree(bytes);
        assertEquals("{\"id\":1}", read.at("/payload/payload").asText(), "the payload is text, not nested JSON");
        assertEquals(CREATED.toEpochMilli(), read.at("/payload/time").asLong());
        // read back: the same values under the same names (JsonConverter does not carry field docs)
        Struct back = (Struct) converter.toConnectData("t", bytes).value();
        assertEquals(EventEnvelope.SCHEMA_NAME, back.schema().name());
        for (Field field : EventEnvelope.SCHEMA.fields()) {
            assertEquals(((Struct) full.value()).get(field), back.get(field.name()), field.name());
        }
    }
}

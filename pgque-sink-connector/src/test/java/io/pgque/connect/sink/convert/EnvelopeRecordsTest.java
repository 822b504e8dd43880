/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.pgque.connect.sink.Fixtures.config;
import static io.pgque.connect.sink.Fixtures.record;
import static io.pgque.connect.sink.convert.ConversionAssertions.converted;
import static io.pgque.connect.sink.convert.ConversionAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * pgque.value.envelope=connect-json with values that are not envelopes, or whose payload does not
 * fit its schema (bad records, each reason naming the key and never quoting the payload),
 * tombstones, and the record's key and headers in the event's other fields.
 */
class EnvelopeRecordsTest {

    private static final String KEY = "pgque.value.envelope=connect-json";
    private static final String SCHEMA = "{\"type\":\"struct\",\"fields\":["
            + "{\"field\":\"id\",\"type\":\"int32\"},"
            + "{\"field\":\"tiny\",\"type\":\"int8\",\"optional\":true},"
            + "{\"field\":\"note\",\"type\":\"string\",\"optional\":true}],\"optional\":true}";

    private static RecordConverter converter(String... overrides) {
        String[] all = new String[overrides.length + 2];
        all[0] = "pgque.value.envelope";
        all[1] = "connect-json";
        System.arraycopy(overrides, 0, all, 2, overrides.length);
        return new RecordConverter(config(all));
    }

    private static SinkRecord bytesRecord(String value) {
        return record(Schema.STRING_SCHEMA, "k", Schema.OPTIONAL_BYTES_SCHEMA,
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    private static String envelope(String payload) {
        return "{\"schema\":" + SCHEMA + ",\"payload\":" + payload + "}";
    }

    @Test
    void aGoodEnvelopeWritesItsPayload() {
        assertEquals("{\"id\":1,\"tiny\":null,\"note\":\"secret-text\"}",
                converted(converter(), bytesRecord(envelope("{\"id\":1,\"note\":\"secret-text\"}"))).payload());
    }

    @Test
    void valuesThatAreNotEnvelopesAreBadRecordsWhoseReasonNamesTheKey() {
        RecordConverter converter = converter();
        List<String[]> cases = List.of(
                new String[] {"", "is empty"},
                new String[] {"   ", "is empty"},
                new String[] {"secret-text", "is not JSON"},
                new String[] {"[\"secret-text\"]", "not a JSON object"},
                new String[] {"{\"payload\":{\"id\":1}}", "no \"schema\" member"},
                new String[] {"{\"schema\":" + SCHEMA + "}", "no \"payload\" member"},
                new String[] {"{\"id\":1,\"note\":\"secret-text\"}", "no \"schema\" member (is the topic written by "
                        + "JsonConverter with schemas.enable=true?)"},
                new String[] {"{\"schema\":" + SCHEMA + ",\"payload\":{\"id\":1},\"extra\":\"secret-text\"}",
                        "members other than"},
                new String[] {"{\"schema\":" + SCHEMA + ",\"schema\":null,\"payload\":{\"id\":1}}", "members other than"},
                new String[] {envelope("{\"id\":1,\"note\":\"secret-text") + "}", "is not JSON"},
                new String[] {envelope("{\"id\":1}") + " {\"secret-text\":1}", "more text follows"},
                new String[] {"{\"schema\":\"secret-text\",\"payload\":1}", "schema is not a JSON object"},
                new String[] {"{\"schema\":{\"type\":\"varchar\"},\"payload\":1}", "unknown type \"varchar\""},
                new String[] {"{\"schema\":{\"type\":\"struct\"},\"payload\":{}}", "\"fields\" is not an array"},
                new String[] {"{\"schema\":{\"type\":\"array\"},\"payload\":[]}", "no \"items\" schema"});
        for (String[] c : cases) {
            String reason = rejected(converter, bytesRecord(c[0]), c[1]);
            assertTrue(reason.startsWith("value (" + KEY + ")"), reason);
            assertFalse(reason.contains("secret-text"), "the reason never quotes the value: " + reason);
        }
    }

    @Test
    void payloadsThatDoNotFitTheirSchemaAreBadRecords() {
        RecordConverter converter = converter();
        List<String[]> cases = List.of(
                new String[] {"{\"id\":\"secret-text\"}", "at /id is a string where its schema wants an int32"},
                new String[] {"{\"id\":1.5}", "at /id is a number with a fraction or exponent"},
                new String[] {"{\"id\":1,\"tiny\":300}", "at /tiny is a number outside the range of an int8"},
                new String[] {"{\"id\":99999999999}", "outside the range of an int32"},
                new String[] {"{\"id\":null}", "null, but its schema (an int32) is required"},
                new String[] {"{\"note\":\"secret-text\"}", "is missing the member \"id\", which its schema requires"},
                new String[] {"[1]", "an array where its schema wants a struct"},
                new String[] {"{\"id\":1,\"note\":true}", "at /note is a boolean"});
        for (String[] c : cases) {
            String reason = rejected(converter, bytesRecord(envelope(c[0])), c[1]);
            assertTrue(reason.startsWith("value (" + KEY + ")"), reason);
            assertFalse(reason.contains("secret-text"), "the reason never quotes the value: " + reason);
        }
        rejected(converter, bytesRecord("{\"schema\":{\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\"},"
                + "\"payload\":\"2024-01-01\"}"), "is a string where its schema wants a Timestamp");
        rejected(converter, bytesRecord("{\"schema\":{\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Time\"},"
                + "\"payload\":90000000}"), "outside 0 to 86400000");
        rejected(converter, bytesRecord("{\"schema\":{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
                + "\"parameters\":{\"scale\":\"2\"}},\"payload\":\"***\"}"), "not base64");
        rejected(converter, bytesRecord("{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"int32\"},\"values\":"
                + "{\"type\":\"string\"}},\"payload\":{\"1\":\"one\"}}"), "an object where its schema wants a map");
        rejected(converter, bytesRecord("{\"schema\":{\"type\":\"string\"},\"payload\":\"secret-text\"}"), "is not JSON");
    }

    /** A value the converter already parsed (JsonConverter's Struct) is not the envelope's text. */
    @Test
    void aStructValueNamesTheConvertersToUse() {
        Schema schema = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
        String reason = rejected(converter(), record(Schema.STRING_SCHEMA, "k", schema, new Struct(schema).put("id", 1)),
                "is a Struct, not the envelope's text");
        assertTrue(reason.contains("ByteArrayConverter"), reason);
    }

    @Test
    void aBadRecordDoesNotSpoilTheNextGoodOne() {
        RecordConverter converter = converter();
        String good = envelope("{\"id\":7}");
        assertEquals("{\"id\":7,\"tiny\":null,\"note\":null}", converted(converter, bytesRecord(good)).payload());
        rejected(converter, bytesRecord(good.substring(0, good.length() - 1) + ",\"x\":1}"), "members other than");
        rejected(converter, bytesRecord(envelope("{\"id\":\"x\"}")), "at /id");
        assertEquals("{\"id\":8,\"tiny\":null,\"note\":null}",
                converted(converter, bytesRecord(envelope("{\"id\":8}"))).payload());
    }

    @Test
    void tombstonesFollowPgqueTombstonesWhetherTheValueOrThePayloadIsNull() {
        String nullPayload = envelope("null");
        for (String value : new String[] {null, nullPayload}) {
            assertInstanceOf(ConversionOutcome.Skipped.class, converter().convert(bytesRecord(value)));
            EventDraft sent = converted(converter("pgque.tombstones", "send"), bytesRecord(value));
            assertNull(sent.payload());
            assertEquals("k", sent.partitionKey());
            rejected(converter("pgque.tombstones", "fail"), bytesRecord(value), "tombstone");
        }
        // A required schema does not allow a null payload, as JsonConverter does not.
        rejected(converter("pgque.tombstones", "send"),
                bytesRecord("{\"schema\":{\"type\":\"int32\"},\"payload\":null}"), "null payload");
        // A null payload of a schema with a default is that default.
        assertEquals("5", converted(converter(), bytesRecord(
                "{\"schema\":{\"type\":\"int32\",\"default\":5},\"payload\":null}")).payload());
    }

    @Test
    void theRecordKeyAndHeadersStillFillTheTemplates() {
        RecordConverter converter = converter("pgque.event.type", "${header:kind}", "pgque.extra3", "${key}@${topic}",
                "pgque.extra4", "${headers}", "pgque.dedup.key", "${key}-${header:id}", "pgque.dedup.ttl.ms", "60000");
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString("kind", "OrderPlaced");
        headers.addString("id", "e-1");
        SinkRecord record = record(Schema.STRING_SCHEMA, "customer-9", Schema.OPTIONAL_BYTES_SCHEMA,
                envelope("{\"id\":1}").getBytes(StandardCharsets.UTF_8), headers);
        EventDraft event = converted(converter, record);
        assertEquals("{\"id\":1,\"tiny\":null,\"note\":null}", event.payload());
        assertEquals("customer-9", event.partitionKey());
        assertEquals("OrderPlaced", event.type());
        assertEquals("customer-9@orders", event.extra3());
        assertEquals("{\"kind\":\"OrderPlaced\",\"id\":\"e-1\"}", event.extra4());
        assertEquals("customer-9-e-1", event.dedupKey());
    }
}

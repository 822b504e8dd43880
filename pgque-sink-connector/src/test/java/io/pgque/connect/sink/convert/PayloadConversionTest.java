/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.pgque.connect.sink.Fixtures.config;
import static io.pgque.connect.sink.Fixtures.record;
import static io.pgque.connect.sink.convert.ConversionAssertions.converted;
import static io.pgque.connect.sink.convert.ConversionAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class PayloadConversionTest {

    private static final RecordConverter JSON = new RecordConverter(config());
    private static final RecordConverter STRING = new RecordConverter(config("pgque.payload.format", "string"));
    private static final RecordConverter BASE64 = new RecordConverter(config("pgque.payload.format", "BASE64"));

    // 2024-01-31T00:00:00Z, and 13:45:30.123 after it.
    private static final long DAY_MS = 1_706_659_200_000L;
    private static final long TIME_MS = 49_530_123L;

    private static final Schema CUSTOMER = SchemaBuilder.struct().name("Customer")
            .field("zip", Schema.STRING_SCHEMA)
            .field("vip", Schema.BOOLEAN_SCHEMA)
            .build();
    private static final Schema ORDER = SchemaBuilder.struct().name("Order")
            .field("id", Schema.INT64_SCHEMA)
            .field("name", Schema.STRING_SCHEMA)
            .field("price", Decimal.schema(2))
            .field("day", Date.SCHEMA)
            .field("at", Time.SCHEMA)
            .field("ts", Timestamp.SCHEMA)
            .field("blob", Schema.BYTES_SCHEMA)
            .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
            .field("customer", CUSTOMER)
            .field("lines", SchemaBuilder.array(CUSTOMER).build())
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .field("ratio", Schema.FLOAT64_SCHEMA)
            .field("small", Schema.INT8_SCHEMA)
            .field("medium", Schema.INT16_SCHEMA)
            .field("count", Schema.INT32_SCHEMA)
            .field("weight", Schema.FLOAT32_SCHEMA)
            .build();

    private static Struct order() {
        return new Struct(ORDER)
                .put("id", 7L)
                .put("name", "Ann")
                .put("price", new BigDecimal("12.50"))
                .put("day", new java.util.Date(DAY_MS))
                .put("at", new java.util.Date(TIME_MS))
                .put("ts", new java.util.Date(DAY_MS + TIME_MS))
                .put("blob", new byte[] {1, 2, 3})
                .put("tags", List.of("a", "b"))
                .put("attrs", Map.of("x", 1))
                .put("customer", new Struct(CUSTOMER).put("zip", "12345").put("vip", true))
                .put("lines", List.of(new Struct(CUSTOMER).put("zip", "9").put("vip", false)))
                .put("note", null)
                .put("ratio", 0.5)
                .put("small", (byte) -1)
                .put("medium", (short) 300)
                .put("count", 70000)
                .put("weight", 1.25f);
    }

    private static final String ORDER_JSON = "{\"id\":7,\"name\":\"Ann\",\"price\":12.50,\"day\":\"2024-01-31\","
            + "\"at\":\"13:45:30.123\",\"ts\":\"2024-01-31T13:45:30.123Z\",\"blob\":\"AQID\",\"tags\":[\"a\",\"b\"],"
            + "\"attrs\":{\"x\":1},\"customer\":{\"zip\":\"12345\",\"vip\":true},"
            + "\"lines\":[{\"zip\":\"9\",\"vip\":false}],\"note\":null,\"ratio\":0.5,"
            + "\"small\":-1,\"medium\":300,\"count\":70000,\"weight\":1.25}";

    private static String payload(RecordConverter converter, Schema schema, Object value) {
        return converted(converter, record(null, "k", schema, value)).payload();
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void structWithNestedAndLogicalTypesBecomesJsonInSchemaOrder() {
        assertEquals(ORDER_JSON, payload(JSON, ORDER, order()));
        assertEquals(ORDER_JSON, payload(STRING, ORDER, order()), "string format writes structures as JSON");
        assertEquals(base64(ORDER_JSON), payload(BASE64, ORDER, order()));
    }

    @Test
    void decimalsKeepTheirDigitsAndNeverUseExponents() {
        Schema money = Decimal.schema(3);
        assertEquals("1000.000", payload(JSON, money, new BigDecimal("1000.000")));
        assertEquals("1000", payload(JSON, null, new BigDecimal("1E+3")));
        assertEquals("0.10000000000000000000001", payload(JSON, null, new BigDecimal("0.10000000000000000000001")));
    }

    @Test
    void temporalScalarsAreQuotedInJsonAndPlainAsString() {
        java.util.Date day = new java.util.Date(DAY_MS);
        assertEquals("\"2024-01-31\"", payload(JSON, Date.SCHEMA, day));
        assertEquals("2024-01-31", payload(STRING, Date.SCHEMA, day));
        assertEquals("\"2024-01-31T00:00:00Z\"", payload(JSON, Timestamp.SCHEMA, day));
        assertEquals("2024-01-31T00:00:00Z", payload(STRING, null, day), "a schemaless Date is a timestamp");
    }

    @Test
    void schemalessMapsAndListsBecomeJson() {
        Map<Object, Object> map = new LinkedHashMap<>();
        map.put("b", List.of(1, 2.5, true, "x"));
        map.put("a", null);
        map.put(2, Map.of("nested", new byte[] {(byte) 0xff}));
        String expected = "{\"b\":[1,2.5,true,\"x\"],\"a\":null,\"2\":{\"nested\":\"/w==\"}}";
        assertEquals(expected, payload(JSON, null, map));
        assertEquals(expected, payload(STRING, null, map));
        assertEquals(base64(expected), payload(BASE64, null, map));
        assertEquals("[{\"k\":1},[]]", payload(JSON, null, List.of(Map.of("k", 1), List.of())));
    }

    @Test
    void stringUnderJsonMustBeOneJsonValueAndPassesUnchanged() {
        String text = " {\"a\": [1, 2.50, \"x\"]} ";
        assertEquals(text, payload(JSON, Schema.STRING_SCHEMA, text));
        assertEquals("\"quoted\"", payload(JSON, null, "\"quoted\""));
        assertEquals("42", payload(JSON, null, "42"));

        rejected(JSON, record("k", "plain words"), "value is not JSON");
        rejected(JSON, record("k", "{\"a\":1"), "value is not JSON: syntax error at line 1");
        rejected(JSON, record("k", "{\"a\":1} {\"b\":2}"), "more than one value");
        rejected(JSON, record("k", "12abc"), "not JSON");
        rejected(JSON, record("k", "   "), "it is empty");
        rejected(JSON, record("k", "{\"a\":\"tab\there\"}"), "not JSON");
    }

    @Test
    void jsonRejectionNeverQuotesThePayload() {
        String reason = rejected(JSON, record("k", "secret-token-123"), "not JSON");
        assertFalse(reason.contains("secret-token-123"), reason);
    }

    @Test
    void stringUnderStringIsAsIsAndUnderBase64IsItsUtf8() {
        assertEquals("plain words ü", payload(STRING, null, "plain words ü"));
        assertEquals(base64("plain words ü"), payload(BASE64, Schema.STRING_SCHEMA, "plain words ü"));
    }

    @Test
    void numbersAndBooleansBecomeJsonText() {
        assertEquals("42", payload(JSON, Schema.INT32_SCHEMA, 42));
        assertEquals("-7", payload(JSON, null, -7L));
        assertEquals("2.5", payload(JSON, Schema.FLOAT64_SCHEMA, 2.5));
        assertEquals("true", payload(JSON, Schema.BOOLEAN_SCHEMA, true));
        assertEquals("42", payload(STRING, null, 42));
        assertEquals("false", payload(STRING, null, false));
        assertEquals(base64("42"), payload(BASE64, null, 42));
    }

    @Test
    void bytesAreBase64OrStrictUtf8() {
        byte[] json = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        assertEquals(Base64.getEncoder().encodeToString(json), payload(BASE64, Schema.BYTES_SCHEMA, json));
        assertEquals("{\"a\":1}", payload(JSON, Schema.BYTES_SCHEMA, json));
        assertEquals("{\"a\":1}", payload(STRING, null, ByteBuffer.wrap(json)));

        byte[] text = "hello".getBytes(StandardCharsets.UTF_8);
        assertEquals("hello", payload(STRING, Schema.BYTES_SCHEMA, text));
        rejected(JSON, record(null, "k", Schema.BYTES_SCHEMA, text), "value is not JSON");

        byte[] invalid = {(byte) 0xc3, (byte) 0x28};
        rejected(STRING, record(null, "k", Schema.BYTES_SCHEMA, invalid), "value is not valid UTF-8");
        rejected(JSON, record(null, "k", null, invalid), "value is not valid UTF-8");
        assertEquals("wyg=", payload(BASE64, null, invalid), "base64 takes any bytes");
    }

    @Test
    void byteBufferIsReadWithoutBeingConsumed() {
        ByteBuffer buffer = ByteBuffer.wrap("abc".getBytes(StandardCharsets.UTF_8));
        SinkRecord record = record(null, "k", Schema.BYTES_SCHEMA, buffer);
        assertEquals("YWJj", converted(BASE64, record).payload());
        assertEquals(3, buffer.remaining());
    }

    @Test
    void valueThatDoesNotMatchItsSchemaIsRejected() {
        rejected(JSON, record(null, "k", Schema.INT32_SCHEMA, "not a number"), "does not match its schema type INT32");
        rejected(STRING, record(null, "k", Schema.INT32_SCHEMA, "not a number"), "does not match its schema type INT32");
        rejected(BASE64, record(null, "k", Schema.STRING_SCHEMA, new byte[] {1}), "does not match its schema type STRING");
        rejected(JSON, record(null, "k", Decimal.schema(2), "1.00"), "does not match its schema type "
                + Decimal.LOGICAL_NAME);
        rejected(JSON, record(null, "k", null, new Object()), "unsupported value type java.lang.Object");
    }

    /** The converter keeps its JSON generator between records; a record refused mid-value must not leave a trace. */
    @Test
    void aValueRefusedHalfWrittenLeavesNothingInTheNextOne() {
        RecordConverter converter = new RecordConverter(config());
        Map<String, Object> half = new LinkedHashMap<>();
        half.put("fine", 1);
        half.put("bad", new Object());
        rejected(converter, record(null, "k", null, half), "unsupported value type java.lang.Object");
        assertEquals("{\"next\":[1,2]}", converted(converter, record(null, "k", null, Map.of("next", List.of(1, 2)))).payload());
        assertEquals("{\"then\":true}", converted(converter, record(null, "k", null, Map.of("then", true))).payload());
    }
}

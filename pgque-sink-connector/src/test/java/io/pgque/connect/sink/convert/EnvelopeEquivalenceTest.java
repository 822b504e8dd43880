/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import com.fasterxml.jackson.databind.json.JsonMapper;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.pgque.connect.sink.Fixtures.config;
import static io.pgque.connect.sink.Fixtures.record;
import static io.pgque.connect.sink.convert.ConversionAssertions.converted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * pgque.value.envelope=connect-json stores, for every document JsonConverter writes, the text the
 * Struct path (JsonConverter reading the value, then the sink writing the Struct) stores: byte
 * for byte, except the member order of maps of more than one entry, which JsonConverter loses (it
 * reads maps into a HashMap) and the envelope path keeps. Checked for chosen documents of every
 * schema type, for hand-written envelopes, and for a few thousand random schemas and values.
 */
class EnvelopeEquivalenceTest {

    private static final RecordConverter STRUCT_PATH = new RecordConverter(config());
    private static final RecordConverter ENVELOPE_PATH = new RecordConverter(config("pgque.value.envelope", "connect-json"));
    private static final JsonConverter BASE64_DECIMALS = converter("BASE64");
    private static final JsonConverter NUMERIC_DECIMALS = converter("NUMERIC");
    private static final JsonMapper TREES = JsonMapper.builder().build();

    private static JsonConverter converter(String decimalFormat) {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "true", "decimal.format", decimalFormat), false);
        return converter;
    }

    private static final Schema INNER = SchemaBuilder.struct().name("Inner")
            .field("text", Schema.OPTIONAL_STRING_SCHEMA)
            .field("f", Schema.FLOAT32_SCHEMA)
            .field("d", Schema.FLOAT64_SCHEMA)
            .build();
    private static final Schema EVERY_TYPE = SchemaBuilder.struct().name("EveryType")
            .field("b", Schema.BOOLEAN_SCHEMA)
            .field("i8", Schema.INT8_SCHEMA)
            .field("i16", Schema.INT16_SCHEMA)
            .field("i32", Schema.INT32_SCHEMA)
            .field("i64", Schema.INT64_SCHEMA)
            .field("f32", Schema.FLOAT32_SCHEMA)
            .field("f64", Schema.FLOAT64_SCHEMA)
            .field("s", Schema.STRING_SCHEMA)
            .field("bytes", Schema.BYTES_SCHEMA)
            .field("price", Decimal.schema(2))
            .field("big", Decimal.schema(0))
            .field("day", Date.SCHEMA)
            .field("at", Time.SCHEMA)
            .field("ts", Timestamp.SCHEMA)
            .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("maybe", SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build())
            .field("one", SchemaBuilder.map(Schema.STRING_SCHEMA, INNER).build())
            .field("byNumber", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
            .field("byDay", SchemaBuilder.map(Date.SCHEMA, Schema.BOOLEAN_SCHEMA).build())
            .field("inner", INNER)
            .field("inners", SchemaBuilder.array(INNER).build())
            .field("none", SchemaBuilder.struct().optional().field("x", Schema.INT32_SCHEMA).build())
            .field("withDefault", SchemaBuilder.string().optional().defaultValue("fallback").build())
            .field("priceDefault", Decimal.builder(3).optional().defaultValue(new BigDecimal("1.250")).build())
            .build();

    private static Struct everyType(String text, double ratio) {
        Map<Integer, String> byNumber = new LinkedHashMap<>();
        byNumber.put(-7, "minus seven");
        return new Struct(EVERY_TYPE)
                .put("b", true)
                .put("i8", Byte.MIN_VALUE)
                .put("i16", Short.MAX_VALUE)
                .put("i32", Integer.MIN_VALUE)
                .put("i64", Long.MAX_VALUE)
                .put("f32", 0.1f)
                .put("f64", ratio)
                .put("s", text)
                .put("bytes", new byte[] {0, 1, -1, 127, -128})
                .put("price", new BigDecimal("-12345678901234567890.05"))
                .put("big", new BigDecimal("1000000000000000000000000"))
                .put("day", new java.util.Date(-86_400_000L * 365))
                .put("at", new java.util.Date(49_530_123L))
                .put("ts", new java.util.Date(-1L))
                .put("tags", List.of("a", "", text))
                .put("maybe", java.util.Arrays.asList(1, null, 3))
                .put("one", Map.of("only", new Struct(INNER).put("text", null).put("f", -0.0f).put("d", 1e300)))
                .put("byNumber", byNumber)
                .put("byDay", Map.of(new java.util.Date(0), false))
                .put("inner", new Struct(INNER).put("text", text).put("f", Float.MAX_VALUE).put("d", Double.MIN_VALUE))
                .put("inners", List.of(new Struct(INNER).put("text", "x").put("f", 1f).put("d", 1e21),
                        new Struct(INNER).put("text", null).put("f", 3.4e-7f).put("d", 1e-7)))
                .put("none", null)
                .put("withDefault", null)
                .put("priceDefault", null);
    }

    @Test
    void everySchemaTypeGivesTheStructPathsTextByteForByte() {
        String unicode = "é ü 中文 🙂 \u2028 \u0001 \"quoted\" back\\slash / tab\t";
        for (JsonConverter writer : List.of(BASE64_DECIMALS, NUMERIC_DECIMALS)) {
            for (double ratio : new double[] {0.30000000000000004, 1.0, -2.5e-300, 123456789.125}) {
                assertSameText(writer.fromConnectData("t", EVERY_TYPE, everyType(unicode, ratio)));
            }
        }
    }

    @Test
    void theBenchmarkDocumentAndScalarPayloads() {
        Schema file = SchemaBuilder.struct().name("FileEvent")
                .field("tenant", Schema.STRING_SCHEMA).field("size", Schema.INT64_SCHEMA)
                .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build()).build();
        assertSameText(BASE64_DECIMALS.fromConnectData("t", file,
                new Struct(file).put("tenant", "tenant-0001").put("size", 1037L).put("tags", List.of("tag-1-0", "tag-1-1"))));
        assertSameText(BASE64_DECIMALS.fromConnectData("t", Schema.INT32_SCHEMA, 42));
        assertSameText(BASE64_DECIMALS.fromConnectData("t", Schema.FLOAT64_SCHEMA, 0.5));
        assertSameText(BASE64_DECIMALS.fromConnectData("t", Schema.BOOLEAN_SCHEMA, false));
        assertSameText(BASE64_DECIMALS.fromConnectData("t", Decimal.schema(4), new BigDecimal("3.1416")));
        assertSameText(BASE64_DECIMALS.fromConnectData("t", Timestamp.SCHEMA, new java.util.Date(1_700_000_000_123L)));
        assertSameText(BASE64_DECIMALS.fromConnectData("t", SchemaBuilder.array(Schema.INT64_SCHEMA).build(), List.of(1L, 2L)));
        // A String or plain bytes payload is JSON text of its own, on both paths.
        assertSameText(BASE64_DECIMALS.fromConnectData("t", Schema.STRING_SCHEMA, "{\"a\": [1, 2]}"));
        assertSameText(BASE64_DECIMALS.fromConnectData("t", Schema.BYTES_SCHEMA,
                "[\"x\"]".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void schemalessEnvelopes() {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("n", 12L);
        document.put("x", 1.5);
        document.put("list", List.of("a", true, 3L));
        document.put("nested", Map.of("deep", List.of()));
        document.put("nothing", null);
        byte[] envelope = BASE64_DECIMALS.fromConnectData("t", null, document);
        assertEquals("{\"schema\":null,", new String(envelope, StandardCharsets.UTF_8).substring(0, 15));
        assertSameMembers(envelope);
        assertSameText(BASE64_DECIMALS.fromConnectData("t", null, Map.of("one", 1L)));
        assertSameText(bytes("{\"schema\":null,\"payload\":[1, 2.50, \"three\", {\"four\": null}]}"));
    }

    @Test
    void mapsKeepTheProducersOrderWhereTheStructPathHasHashOrder() {
        Schema counts = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build();
        Map<String, Integer> ordered = new LinkedHashMap<>();
        for (String key : List.of("e", "d", "c", "b", "a")) {
            ordered.put(key, key.charAt(0) - 'a');
        }
        byte[] envelope = BASE64_DECIMALS.fromConnectData("t", counts, ordered);
        assertSameMembers(envelope);
        assertEquals("{\"e\":4,\"d\":3,\"c\":2,\"b\":1,\"a\":0}", envelopePath(envelope));
        assertNotEquals(envelopePath(envelope), structPath(envelope), "a HashMap orders these keys a to e");
    }

    /** Envelopes written by hand rather than by JsonConverter still give the Struct path's text. */
    @Test
    void handWrittenEnvelopes() {
        String schema = "{\"type\":\"struct\",\"fields\":["
                + "{\"field\":\"a\",\"type\":\"int32\"},"
                + "{\"field\":\"b\",\"type\":\"double\",\"optional\":true},"
                + "{\"field\":\"c\",\"type\":\"string\",\"optional\":true,\"default\":\"dflt\"},"
                + "{\"field\":\"d\",\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
                + "\"parameters\":{\"scale\":\"2\"},\"optional\":true},"
                + "{\"field\":\"m\",\"type\":\"map\",\"keys\":{\"type\":\"int64\"},\"values\":{\"type\":\"string\"},"
                + "\"optional\":true}]}";
        List<String> payloads = List.of(
                "{\"a\":1,\"b\":2,\"c\":\"x\",\"d\":5.00}",                 // 2 in a double field is 2.0
                "{\"b\":1.50,\"a\":-3}",                                  // out of order, missing members
                "{\"a\":1,\"unknown\":{\"deep\":[1,2]},\"a\":2}",         // unknown member, repeated member
                "{ \"a\" : 7 ,\n \"c\" : \"\\u00e9\\/\\n\" }",            // whitespace, escapes
                "{\"a\":1,\"d\":\"AfE=\",\"m\":[[1,\"one\"]]}",            // a BASE64 decimal, a pair map
                "{\"a\":1,\"d\":1E+3,\"m\":[[2,\"two\"],[2,\"again\"]]}",  // exponent decimal, repeated key
                "{\"a\":1,\"c\":null}");                                  // null becomes the default
        for (String payload : payloads) {
            assertSameText(bytes("{\"schema\":" + schema + ",\"payload\":" + payload + "}"));
            assertSameText(bytes("{\"payload\":" + payload + ", \"schema\":" + schema + "}\n"));
        }
    }

    /** Random schemas and values, written by JsonConverter with either decimal format. */
    @Test
    void randomDocuments() {
        Random random = new Random(43);
        for (int i = 0; i < 3000; i++) {
            Schema schema = randomSchema(random, 0, false);
            Object value = randomValue(random, schema, 0);
            JsonConverter writer = random.nextBoolean() ? BASE64_DECIMALS : NUMERIC_DECIMALS;
            byte[] envelope = writer.fromConnectData("t", schema, value);
            if (hasWideMap(schema, value)) {
                assertSameMembers(envelope);
            } else {
                assertSameText(envelope);
            }
        }
    }

    private static Schema randomSchema(Random random, int depth, boolean key) {
        int kinds = depth >= 3 || key ? 13 : 16;
        SchemaBuilder builder = switch (random.nextInt(kinds)) {
            case 0 -> SchemaBuilder.bool();
            case 1 -> SchemaBuilder.int8();
            case 2 -> SchemaBuilder.int16();
            case 3 -> SchemaBuilder.int32();
            case 4 -> SchemaBuilder.int64();
            case 5 -> SchemaBuilder.float32();
            case 6 -> SchemaBuilder.float64();
            case 7 -> SchemaBuilder.string();
            case 8 -> SchemaBuilder.bytes();
            case 9 -> Decimal.builder(random.nextInt(12) - 2);
            case 10 -> Date.builder();
            case 11 -> Time.builder();
            case 12 -> Timestamp.builder();
            case 13 -> SchemaBuilder.array(randomSchema(random, depth + 1, false));
            case 14 -> SchemaBuilder.map(randomSchema(random, depth + 1, true), randomSchema(random, depth + 1, false));
            default -> {
                SchemaBuilder struct = SchemaBuilder.struct().name("S" + depth);
                int fields = 1 + random.nextInt(5);
                for (int f = 0; f < fields; f++) {
                    struct.field("f" + f + "_" + random.nextInt(1000), randomSchema(random, depth + 1, false));
                }
                yield struct;
            }
        };
        if (!key && random.nextInt(4) == 0) {
            builder.optional();
        }
        return builder.build();
    }

    private static Object randomValue(Random random, Schema schema, int depth) {
        if (schema.isOptional() && random.nextInt(3) == 0) {
            return null;
        }
        if (schema.name() != null && schema.type() != Schema.Type.STRUCT) {
            return switch (schema.name()) {
                case Decimal.LOGICAL_NAME -> new BigDecimal(new BigInteger(random.nextInt(90) + 1, random)
                        .multiply(BigInteger.valueOf(random.nextBoolean() ? 1 : -1)),
                        Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD)));
                case Date.LOGICAL_NAME -> new java.util.Date((random.nextInt(40_000) - 20_000) * 86_400_000L);
                case Time.LOGICAL_NAME -> new java.util.Date(random.nextInt(86_400_000));
                case Timestamp.LOGICAL_NAME -> new java.util.Date(random.nextLong() % 100_000_000_000_000L);
                default -> throw new IllegalStateException(schema.name());
            };
        }
        return switch (schema.type()) {
            case BOOLEAN -> random.nextBoolean();
            case INT8 -> (byte) random.nextInt();
            case INT16 -> (short) random.nextInt();
            case INT32 -> random.nextInt();
            case INT64 -> random.nextLong();
            case FLOAT32 -> random.nextBoolean() ? Float.intBitsToFloat(random.nextInt() & 0x7f7fffff)
                    : (float) random.nextGaussian();
            case FLOAT64 -> random.nextBoolean() ? Double.longBitsToDouble(random.nextLong() & 0x7fefffffffffffffL)
                    : random.nextGaussian() * 1000;
            case STRING -> randomText(random);
            case BYTES -> {
                byte[] bytes = new byte[random.nextInt(20)];
                random.nextBytes(bytes);
                yield bytes;
            }
            case ARRAY -> {
                List<Object> list = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    list.add(randomValue(random, schema.valueSchema(), depth + 1));
                }
                yield list;
            }
            case MAP -> {
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    map.put(randomValue(random, schema.keySchema(), depth + 1),
                            randomValue(random, schema.valueSchema(), depth + 1));
                }
                yield map;
            }
            case STRUCT -> {
                Struct struct = new Struct(schema);
                schema.fields().forEach(f -> struct.put(f, randomValue(random, f.schema(), depth + 1)));
                yield struct;
            }
        };
    }

    private static String randomText(Random random) {
        String alphabet = "aZ09 \"\\/\t\n\u0001é中🙂\u2028{}[],:";
        StringBuilder text = new StringBuilder();
        for (int i = random.nextInt(12); i > 0; i--) {
            text.appendCodePoint(alphabet.codePoints().toArray()[random.nextInt((int) alphabet.codePoints().count())]);
        }
        return text.toString();
    }

    // A map of two or more entries somewhere in the value: its member order is the one difference.
    private static boolean hasWideMap(Schema schema, Object value) {
        if (value == null) {
            return false;
        }
        return switch (schema.type()) {
            case MAP -> ((Map<?, ?>) value).size() > 1
                    || ((Map<?, ?>) value).values().stream().anyMatch(v -> hasWideMap(schema.valueSchema(), v));
            case ARRAY -> ((List<?>) value).stream().anyMatch(v -> hasWideMap(schema.valueSchema(), v));
            case STRUCT -> schema.fields().stream().anyMatch(f -> hasWideMap(f.schema(), ((Struct) value).get(f)));
            default -> false;
        };
    }

    private static void assertSameText(byte[] envelope) {
        assertEquals(structPath(envelope), envelopePath(envelope), () -> new String(envelope, StandardCharsets.UTF_8));
    }

    // Equal as JSON (Jackson's object equality ignores member order), for maps of several entries.
    private static void assertSameMembers(byte[] envelope) {
        try {
            String struct = structPath(envelope);
            String envelopeText = envelopePath(envelope);
            assertEquals(TREES.readTree(struct), TREES.readTree(envelopeText), () -> struct + " vs " + envelopeText);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String structPath(byte[] envelope) {
        SchemaAndValue read = BASE64_DECIMALS.toConnectData("t", envelope);
        return payloadOf(STRUCT_PATH, record(Schema.STRING_SCHEMA, "k", read.schema(), read.value()));
    }

    private static String envelopePath(byte[] envelope) {
        return payloadOf(ENVELOPE_PATH, record(Schema.STRING_SCHEMA, "k", Schema.OPTIONAL_BYTES_SCHEMA, envelope));
    }

    private static String payloadOf(RecordConverter converter, SinkRecord record) {
        // Both paths refuse the same records (a String payload that is not JSON text, say).
        ConversionOutcome outcome = converter.convert(record);
        if (outcome instanceof ConversionOutcome.Skipped) {
            return "<tombstone>";
        }
        if (outcome instanceof ConversionOutcome.Rejected) {
            return "<rejected>";
        }
        return converted(converter, record).payload();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aStringValueFromStringConverterReadsTheSame() {
        byte[] envelope = BASE64_DECIMALS.fromConnectData("t", EVERY_TYPE, everyType("text", 2.0));
        String text = new String(envelope, StandardCharsets.UTF_8);
        EventDraft fromString = converted(ENVELOPE_PATH, record(Schema.STRING_SCHEMA, "k", Schema.OPTIONAL_STRING_SCHEMA, text));
        assertEquals(structPath(envelope), fromString.payload());
        assertInstanceOf(ConversionOutcome.Converted.class, ENVELOPE_PATH.convert(
                record(Schema.STRING_SCHEMA, "k", null, java.nio.ByteBuffer.wrap(envelope))));
    }
}

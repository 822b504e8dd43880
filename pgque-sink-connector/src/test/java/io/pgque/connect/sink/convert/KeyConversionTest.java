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
import org.apache.kafka.connect.header.ConnectHeaders;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.pgque.connect.sink.Fixtures.config;
import static io.pgque.connect.sink.Fixtures.record;
import static io.pgque.connect.sink.convert.ConversionAssertions.converted;
import static io.pgque.connect.sink.convert.ConversionAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class KeyConversionTest {

    private static final RecordConverter RECORD_KEY = new RecordConverter(config());

    private static String key(Schema schema, Object key) {
        return converted(RECORD_KEY, record(schema, key, null, "{}")).partitionKey();
    }

    @Test
    void scalarKeysAsPlainText() {
        assertEquals("customer-1", key(Schema.STRING_SCHEMA, "customer-1"));
        assertEquals("", key(null, ""), "an empty key is a key, not an absent one");
        assertEquals("-12", key(Schema.INT8_SCHEMA, (byte) -12));
        assertEquals("1234", key(Schema.INT16_SCHEMA, (short) 1234));
        assertEquals("70000", key(Schema.INT32_SCHEMA, 70000));
        assertEquals("9007199254740993", key(Schema.INT64_SCHEMA, 9007199254740993L));
        assertEquals("true", key(Schema.BOOLEAN_SCHEMA, true));
    }

    @Test
    void decimalsAndFloatsAsPlainDecimalText() {
        assertEquals("12.50", key(Decimal.schema(2), new BigDecimal("12.50")));
        assertEquals("1000", key(null, new BigDecimal("1E+3")));
        assertEquals("10000000000", key(Schema.FLOAT64_SCHEMA, 1.0E10));
        assertEquals("7", key(Schema.FLOAT64_SCHEMA, 7.0), "same text as the integer 7");
        assertEquals("2.5", key(null, 2.50));
        assertEquals("0.000001", key(null, 1e-6));
        assertEquals("0.1", key(Schema.FLOAT32_SCHEMA, 0.1f));
        assertEquals("NaN", key(null, Double.NaN));
    }

    @Test
    void structAndMapKeysAsCanonicalJsonWithSortedMembers() {
        Schema schema = SchemaBuilder.struct()
                .field("zone", Schema.STRING_SCHEMA)
                .field("id", Schema.INT32_SCHEMA)
                .field("inner", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
                .build();
        Map<String, Integer> inner = new LinkedHashMap<>();
        inner.put("b", 2);
        inner.put("a", 1);
        Struct struct = new Struct(schema).put("zone", "eu").put("id", 7).put("inner", inner);
        assertEquals("{\"id\":7,\"inner\":{\"a\":1,\"b\":2},\"zone\":\"eu\"}", key(schema, struct));

        Map<Object, Object> map = new LinkedHashMap<>();
        map.put("z", List.of(3, 1));
        map.put("a", Map.of("y", true));
        assertEquals("{\"a\":{\"y\":true},\"z\":[3,1]}", key(null, map));
    }

    @Test
    void bytesKeysAsBase64() {
        assertEquals("AQID", key(Schema.BYTES_SCHEMA, new byte[] {1, 2, 3}));
        assertEquals("AQID", key(null, ByteBuffer.wrap(new byte[] {1, 2, 3})));
    }

    @Test
    void temporalKeysAsIso() {
        assertEquals("2024-01-31", key(Date.SCHEMA, new java.util.Date(1_706_659_200_000L)));
    }

    @Test
    void nullKeyMeansNoPartitionKeyUnlessRequired() {
        assertNull(key(null, null));
        RecordConverter required = new RecordConverter(config("pgque.partition.key.required", "true"));
        rejected(required, record(null, null, null, "{}"), "no partition key: the record key is null");
    }

    @Test
    void keyFromHeaderIsConvertedLikeARecordKey() {
        RecordConverter fromHeader = new RecordConverter(config("pgque.partition.key", "header:customer"));
        ConnectHeaders headers = new ConnectHeaders();
        headers.addInt("customer", 5).addString("customer", "c-9");
        assertEquals("c-9", converted(fromHeader, record(null, "ignored", null, "{}", headers)).partitionKey(),
                "the last header of a name wins");

        ConnectHeaders structured = new ConnectHeaders();
        structured.addMap("customer", Map.of("b", 1, "a", 2),
                SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build());
        assertEquals("{\"a\":2,\"b\":1}", converted(fromHeader, record(null, null, null, "{}", structured)).partitionKey());
    }

    @Test
    void missingHeaderMeansNoPartitionKeyUnlessRequired() {
        RecordConverter fromHeader = new RecordConverter(config("pgque.partition.key", "Header:customer"));
        assertNull(converted(fromHeader, record("k", "{}")).partitionKey());

        ConnectHeaders nullValue = new ConnectHeaders();
        nullValue.addString("customer", null);
        assertNull(converted(fromHeader, record(null, "k", null, "{}", nullValue)).partitionKey());

        RecordConverter required = new RecordConverter(config("pgque.partition.key", "header:customer",
                "pgque.partition.key.required", "true"));
        rejected(required, record("k", "{}"), "header 'customer' is missing or null");
    }

    @Test
    void noneIgnoresTheKey() {
        RecordConverter none = new RecordConverter(config("pgque.partition.key", "none"));
        assertNull(converted(none, record("customer-1", "{}")).partitionKey());
    }

    @Test
    void unsupportedKeyTypeIsRejectedNamingTheKey() {
        rejected(RECORD_KEY, record(null, new Object(), null, "{}"), "record key: unsupported value type");
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static io.pgque.connect.sink.Fixtures.config;
import static io.pgque.connect.sink.Fixtures.record;
import static io.pgque.connect.sink.convert.ConversionAssertions.converted;
import static io.pgque.connect.sink.convert.ConversionAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PostgreSQL text cannot hold NUL: every field that can carry one refuses the record. */
class NulRejectionTest {

    private static final String NUL = "a\u0000b";

    private static SinkRecord withHeader(String key, String value) {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString("h", NUL);
        return record(null, key, null, value, headers);
    }

    @Test
    void inAStringPayloadUnderEveryTextFormat() {
        rejected(new RecordConverter(config("pgque.payload.format", "string")), record("k", NUL),
                "payload contains a NUL character");
        rejected(new RecordConverter(config()), record("k", "\"a\u0000\""), "payload contains a NUL character");
    }

    @Test
    void inBytesDecodedAsText() {
        byte[] bytes = NUL.getBytes(StandardCharsets.UTF_8);
        rejected(new RecordConverter(config("pgque.payload.format", "string")),
                record(null, "k", Schema.BYTES_SCHEMA, bytes), "payload contains a NUL character");
    }

    @Test
    void notInBase64OrInsideJsonEscapes() {
        // Base64 text has no NUL, and JSON writes NUL inside strings as the escape \u0000.
        assertEquals("YQBi", converted(new RecordConverter(config("pgque.payload.format", "base64")),
                record("k", NUL)).payload());
        assertEquals("[\"a\\u0000b\"]", converted(new RecordConverter(config()),
                record(null, "k", null, java.util.List.of(NUL))).payload());
    }

    @Test
    void inThePartitionKeyFromRecordKeyOrHeader() {
        rejected(new RecordConverter(config()), record(NUL, "{}"), "partition key contains a NUL character");
        rejected(new RecordConverter(config("pgque.partition.key", "header:h")), withHeader("k", "{}"),
                "partition key contains a NUL character");
    }

    @Test
    void inTheEventType() {
        rejected(new RecordConverter(config("pgque.event.type", "${header:h}")), withHeader("k", "{}"),
                "event type contains a NUL character");
    }

    @Test
    void inTheExtraFields() {
        rejected(new RecordConverter(config("pgque.partition.key", "none", "pgque.extra3", "x${key}")),
                record(NUL, "{}"), "extra3 contains a NUL character");
        rejected(new RecordConverter(config("pgque.partition.key", "none", "pgque.extra4", "${header:h}")),
                withHeader("k", "{}"), "extra4 contains a NUL character");
    }

    @Test
    void inTheDedupKey() {
        rejected(new RecordConverter(config("pgque.partition.key", "none",
                        "pgque.dedup.key", "${key}", "pgque.dedup.ttl.ms", "1000")), record(NUL, "{}"),
                "dedup key contains a NUL character");
    }

    @Test
    void reasonSaysWhereAndWhyWithoutTruncating() {
        String reason = rejected(new RecordConverter(config("pgque.payload.format", "string")), record("k", NUL),
                "at index 1");
        assertTrue(reason.contains("PostgreSQL text cannot store"), reason);
    }
}

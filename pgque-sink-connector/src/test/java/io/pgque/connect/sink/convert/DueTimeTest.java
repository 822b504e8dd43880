/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.Map;

import static io.pgque.connect.sink.Fixtures.TOPIC;
import static io.pgque.connect.sink.Fixtures.config;
import static io.pgque.connect.sink.convert.ConversionAssertions.converted;
import static io.pgque.connect.sink.convert.ConversionAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * pgque.delay.header and pgque.delay.ms: which due time a record's event gets, in every form the
 * header converters hand over, and which headers make a bad record.
 */
class DueTimeTest {

    private static final String HEADER = "deliver-at";
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final long TIMESTAMP = 1_700_000_000_000L;
    private static final Instant DUE = Instant.parse("2026-03-01T12:05:00Z");

    private static RecordConverter converter(String... overrides) {
        return new RecordConverter(config(overrides), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private static SinkRecord record(Long timestamp, ConnectHeaders headers) {
        return new SinkRecord(TOPIC, 0, Schema.STRING_SCHEMA, "k", Schema.STRING_SCHEMA, "{}", 7L, timestamp,
                timestamp == null ? TimestampType.NO_TIMESTAMP_TYPE : TimestampType.CREATE_TIME, headers);
    }

    private static SinkRecord withHeader(Schema schema, Object value) {
        ConnectHeaders headers = new ConnectHeaders();
        headers.add(HEADER, value, schema);
        return record(TIMESTAMP, headers);
    }

    @Test
    void withoutDelaySettingsEveryEventIsDueAtOnce() {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString(HEADER, DUE.toString());
        assertNull(converted(converter(), record(TIMESTAMP, headers)).deliverAt(), "the header is read only when named");
    }

    @Test
    void theHeaderNamesTheTimeInEveryFormTheConvertersHandOver() {
        RecordConverter converter = converter("pgque.delay.header", HEADER);
        long millis = DUE.toEpochMilli();
        Map<String, SinkRecord> forms = Map.of(
                "epoch millis as a long", withHeader(Schema.INT64_SCHEMA, millis),
                "epoch millis as text", withHeader(Schema.STRING_SCHEMA, " " + millis + " "),
                "ISO-8601 in UTC", withHeader(Schema.STRING_SCHEMA, "2026-03-01T12:05:00Z"),
                "ISO-8601 with an offset", withHeader(Schema.STRING_SCHEMA, "2026-03-01T13:05:00+01:00"),
                "ISO-8601 with a fraction", withHeader(Schema.STRING_SCHEMA, "2026-03-01T12:05:00.000Z"),
                "a Connect Timestamp (SimpleHeaderConverter's reading of ISO text)",
                withHeader(Timestamp.SCHEMA, Date.from(DUE)),
                "bytes of text (ByteArrayConverter)", withHeader(Schema.BYTES_SCHEMA,
                        Long.toString(millis).getBytes(StandardCharsets.UTF_8)),
                "a whole decimal", withHeader(null, new BigDecimal(millis)));
        forms.forEach((form, record) -> assertEquals(DUE, converted(converter, record).deliverAt(), form));
    }

    @Test
    void aRecordWithoutTheHeaderWaitsTheFixedDelayFromItsTimestamp() {
        RecordConverter converter = converter("pgque.delay.header", HEADER, "pgque.delay.ms", "60000");
        assertEquals(Instant.ofEpochMilli(TIMESTAMP + 60_000), converted(converter, record(TIMESTAMP, new ConnectHeaders())).deliverAt());
        assertEquals(NOW.plusMillis(60_000), converted(converter, record(null, new ConnectHeaders())).deliverAt(),
                "no timestamp: from the time of writing");
        assertEquals(Instant.ofEpochMilli(TIMESTAMP + 60_000), converted(converter, withHeader(Schema.OPTIONAL_STRING_SCHEMA, null))
                .deliverAt(), "a null header is no header");
        assertEquals(DUE, converted(converter, withHeader(Schema.STRING_SCHEMA, DUE.toString())).deliverAt(),
                "the header, when there, wins over the fixed delay");
        assertNull(converted(converter("pgque.delay.header", HEADER), record(TIMESTAMP, new ConnectHeaders())).deliverAt(),
                "without a fixed delay a record without the header is due at once");
    }

    @Test
    void theLastHeaderOfTheNameCounts() {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString(HEADER, "garbage");
        headers.addString(HEADER, DUE.toString());
        assertEquals(DUE, converted(converter("pgque.delay.header", HEADER), record(TIMESTAMP, headers)).deliverAt());
    }

    @Test
    void aHeaderThatNamesNoTimeIsABadRecordSayingWhatWasExpected() {
        RecordConverter converter = converter("pgque.delay.header", HEADER, "pgque.delay.ms", "1000");
        String reason = rejected(converter, withHeader(Schema.STRING_SCHEMA, "tomorrow"), "delay header 'deliver-at'");
        assertTrue(reason.contains("epoch milliseconds") && reason.contains("ISO-8601"), reason);
        rejected(converter, withHeader(Schema.STRING_SCHEMA, "2026-03-01T12:05:00"), "is not a time");
        rejected(converter, withHeader(Schema.STRING_SCHEMA, "99999999999999999999"), "too large");
        rejected(converter, withHeader(Schema.FLOAT64_SCHEMA, 1.5e12), "Double, not a time");
        rejected(converter, withHeader(null, new BigDecimal("1767225600000.5")), "whole number of milliseconds");
        rejected(converter, withHeader(Schema.BOOLEAN_SCHEMA, true), "Boolean, not a time");
        rejected(converter, withHeader(Schema.BYTES_SCHEMA, new byte[] {(byte) 0xff, (byte) 0xfe}), "not UTF-8");
        rejected(converter, withHeader(Schema.INT64_SCHEMA, Long.MAX_VALUE), "outside the years 1 to 9999");
        rejected(converter, withHeader(Schema.STRING_SCHEMA, "+10000-01-01T00:00:00Z"), "outside the years 1 to 9999");
    }

    @Test
    void aTimeInThePastIsPassedOnForTheEngineToSendAtOnce() {
        Instant past = Instant.parse("1999-01-01T00:00:00Z");
        assertEquals(past, converted(converter("pgque.delay.header", HEADER),
                withHeader(Schema.STRING_SCHEMA, past.toString())).deliverAt());
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import io.pgque.connect.sink.config.PgQueSinkConfig;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Date;
import java.util.regex.Pattern;

/**
 * When a record's event may be delivered: the time its delay header names, else its timestamp plus
 * {@code pgque.delay.ms} (the time of writing for a record without a timestamp), else at once
 * (null). A header that names no time makes the record a bad record.
 */
final class DueTime {

    /** What PostgreSQL's timestamptz and ISO-8601 text both hold without a sign or a fifth year digit. */
    private static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999Z");
    private static final Pattern MILLIS = Pattern.compile("[+-]?[0-9]+");
    private static final String EXPECTED = "epoch milliseconds (1767225600000) or ISO-8601 text with a time zone "
            + "(2026-01-01T00:00:00Z, 2026-01-01T01:00:00+01:00)";

    /** Null when no header is configured. */
    private final String header;
    private final long delayMs;
    private final Clock clock;

    DueTime(String header, long delayMs, Clock clock) {
        this.header = header == null || header.isEmpty() ? null : header;
        this.delayMs = delayMs;
        this.clock = clock;
    }

    /** Whether any record may be held: a header or a delay is configured. */
    boolean configured() {
        return header != null || delayMs > 0;
    }

    /** The record's due time, or null when it is due at once. */
    Instant of(SinkRecord record) {
        if (header != null) {
            Header last = record.headers().lastWithName(header);
            Instant named = last == null ? null : headerTime(last.value());
            if (named != null) {
                return named;
            }
        }
        if (delayMs <= 0) {
            return null;
        }
        Long timestamp = record.timestamp();
        Instant base = timestamp == null || timestamp < 0 ? clock.instant() : Instant.ofEpochMilli(timestamp);
        return inRange(base.plusMillis(delayMs), "the record's timestamp plus " + PgQueSinkConfig.DELAY_MS);
    }

    private Instant headerTime(Object value) {
        if (value == null) {
            return null;
        }
        Instant time;
        if (value instanceof Date date) {
            time = date.toInstant();
        } else if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
            time = Instant.ofEpochMilli(((Number) value).longValue());
        } else if (value instanceof BigInteger || value instanceof BigDecimal) {
            time = Instant.ofEpochMilli(wholeMillis(value));
        } else if (value instanceof String text) {
            time = parse(text);
        } else if (value instanceof byte[] bytes) {
            time = parse(utf8(bytes));
        } else if (value instanceof ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            time = parse(utf8(bytes));
        } else {
            throw refused("is a " + value.getClass().getSimpleName() + ", not a time");
        }
        return inRange(time, "delay header '" + header + "'");
    }

    private long wholeMillis(Object number) {
        try {
            return new BigDecimal(number.toString()).longValueExact();
        } catch (ArithmeticException e) {
            throw refused("is " + number + ", not a whole number of milliseconds that fits a long");
        }
    }

    private Instant parse(String raw) {
        String text = raw.trim();
        if (MILLIS.matcher(text).matches()) {
            try {
                return Instant.ofEpochMilli(Long.parseLong(text));
            } catch (NumberFormatException e) {
                throw refused("'" + text + "' is too large for epoch milliseconds");
            }
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw refused("'" + shortened(text) + "' is not a time");
        }
    }

    private String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw refused("is not UTF-8 text");
        }
    }

    private static Instant inRange(Instant time, String what) {
        if (time.isBefore(EARLIEST) || time.isAfter(LATEST)) {
            throw new RecordRejectedException(what + " is " + time + ", outside the years 1 to 9999");
        }
        return time;
    }

    private RecordRejectedException refused(String problem) {
        return new RecordRejectedException("delay header '" + header + "' " + problem + ": expected " + EXPECTED);
    }

    private static String shortened(String text) {
        return text.length() <= 64 ? text : text.substring(0, 64) + "...";
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Date;
import java.util.Map;

/**
 * A key-like value as one canonical text: strings as they are, numbers in plain decimal, bytes
 * in base64, dates in ISO-8601, and structures as JSON with sorted member names. Equal keys give
 * equal text, which is what a partition key needs: PgQue hashes the text to pick a slot.
 * Used for record keys, header values and map keys.
 */
final class KeyText {

    private KeyText() {
    }

    /** The text of {@code value}, or null when the value is null. */
    static String of(Schema schema, Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof String) {
            return (String) value;
        }
        String logical = schema == null ? null : schema.name();
        if (value instanceof Date) {
            if (org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(logical)) {
                return Temporal.date((Date) value);
            }
            if (Time.LOGICAL_NAME.equals(logical)) {
                return Temporal.time((Date) value);
            }
            return Temporal.timestamp((Date) value);
        }
        if (value instanceof Byte || value instanceof Short || value instanceof Integer
                || value instanceof Long || value instanceof BigInteger) {
            return value.toString();
        }
        if (value instanceof BigDecimal) {
            return ((BigDecimal) value).toPlainString();
        }
        if (value instanceof Float || value instanceof Double) {
            return floating(((Number) value).doubleValue(), value);
        }
        if (value instanceof Boolean) {
            return value.toString();
        }
        if (Bytes.isBytes(value)) {
            return Bytes.base64(value);
        }
        if (value instanceof Struct || value instanceof Map || value instanceof Collection) {
            return ConnectJson.canonicalText(schema, value);
        }
        throw new RecordRejectedException("unsupported value type " + value.getClass().getName());
    }

    // The shortest plain decimal, never exponent notation: 1.0E10 → "10000000000", 2.50 → "2.5",
    // 7.0 → "7" (the same text, and so the same slot, as the integer 7).
    private static String floating(double number, Object original) {
        if (Double.isNaN(number) || Double.isInfinite(number)) {
            return Double.toString(number);
        }
        // Float.toString gives the shortest text that round-trips the float; widening to double
        // first would add noise digits (0.1f → 0.10000000149011612).
        String shortest = original instanceof Float ? original.toString() : Double.toString(number);
        return new BigDecimal(shortest).stripTrailingZeros().toPlainString();
    }
}

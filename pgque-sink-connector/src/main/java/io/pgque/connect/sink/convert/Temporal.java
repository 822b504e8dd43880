/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Date;

/**
 * ISO-8601 text for Connect's Date, Time and Timestamp logical types. Connect defines all three
 * in UTC, so the text is in UTC too and never depends on the worker's time zone.
 */
final class Temporal {

    private Temporal() {
    }

    /** Connect Date: midnight UTC of the day → "2024-01-31". */
    static String date(Date value) {
        return Instant.ofEpochMilli(value.getTime()).atOffset(ZoneOffset.UTC).toLocalDate().toString();
    }

    /** Connect Time: milliseconds after midnight → "13:45:30.123" (fraction only when non-zero). */
    static String time(Date value) {
        return DateTimeFormatter.ISO_LOCAL_TIME.format(
                Instant.ofEpochMilli(value.getTime()).atOffset(ZoneOffset.UTC).toLocalTime());
    }

    /** Connect Timestamp, or a schemaless java.util.Date → "2024-01-31T13:45:30.123Z". */
    static String timestamp(Date value) {
        return DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(value.getTime()));
    }
}

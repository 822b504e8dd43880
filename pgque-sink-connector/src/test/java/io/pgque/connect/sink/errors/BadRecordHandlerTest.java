/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.errors;

import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.pgque.connect.sink.Fixtures.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BadRecordHandlerTest {

    @Test
    void withoutAReporterTheTaskFailsNamingTheRecordAndTheReason() {
        BadRecordException e = assertThrows(BadRecordException.class,
                () -> new BadRecordHandler(null).handle(record("k", "v"), "value is not JSON"));
        assertEquals("Bad record at topic=orders, partition=3, offset=42: value is not JSON", e.getMessage());
    }

    @Test
    void withAReporterTheRecordIsReportedWithTheReason() {
        List<Throwable> reported = new ArrayList<>();
        SinkRecord record = record("k", "v");
        List<SinkRecord> records = new ArrayList<>();
        new BadRecordHandler((r, error) -> {
            records.add(r);
            reported.add(error);
            return CompletableFuture.completedFuture(null);
        }).handle(record, "tombstone refused");
        assertSame(record, records.get(0));
        assertTrue(reported.get(0).getMessage().endsWith("offset=42: tombstone refused"));
    }
}

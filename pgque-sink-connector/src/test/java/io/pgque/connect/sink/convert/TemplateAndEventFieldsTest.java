/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import static io.pgque.connect.sink.Fixtures.config;
import static io.pgque.connect.sink.Fixtures.record;
import static io.pgque.connect.sink.convert.ConversionAssertions.converted;
import static io.pgque.connect.sink.convert.ConversionAssertions.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

class TemplateAndEventFieldsTest {

    private static ConnectHeaders headers() {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString("trace", "t-1");
        headers.addInt("attempt", 2);
        headers.addBytes("raw", new byte[] {1, 2, 3});
        return headers;
    }

    @Test
    void defaultsTypeIsTopicAndExtrasAreNull() {
        EventDraft event = converted(new RecordConverter(config()), record("k", "{}"));
        assertEquals(new EventDraft("events", "orders", "{}", "k", null, null, null), event);
    }

    @Test
    void coordinatesKeyAndHeadersRenderIntoTypeAndExtras() {
        RecordConverter converter = new RecordConverter(config(
                "pgque.event.type", "${header:trace}.${topic}",
                "pgque.extra3", "${topic}/${partition}/${offset}",
                "pgque.extra4", "key=${key};attempt=${header:attempt};raw=${header:raw};none=${header:absent}"));
        EventDraft event = converted(converter, record(null, "k1", null, "{}", headers()));
        assertEquals("t-1.orders", event.type());
        assertEquals("orders/3/42", event.extra3());
        assertEquals("key=k1;attempt=2;raw=AQID;none=", event.extra4());
    }

    @Test
    void allHeadersAsJsonInAnExtraField() {
        RecordConverter converter = new RecordConverter(config("pgque.extra3", "${headers}"));
        assertEquals("{\"trace\":\"t-1\",\"attempt\":2,\"raw\":\"AQID\"}",
                converted(converter, record(null, "k", null, "{}", headers())).extra3());
        assertEquals("{}", converted(converter, record("k", "{}")).extra3());
    }

    @Test
    void emptyRenderingIsStoredAsNull() {
        RecordConverter converter = new RecordConverter(config(
                "pgque.event.type", "${header:absent}", "pgque.extra3", "${key}"));
        EventDraft event = converted(converter, record(null, null, null, "{}"));
        assertNull(event.type());
        assertNull(event.extra3());
    }

    @Test
    void queueComesFromTheMapThenFromTheTemplate() {
        RecordConverter converter = new RecordConverter(config(
                "pgque.queue", "kafka_${topic}", "pgque.queue.map", "orders:order_events", "topics", "orders,other"));
        assertEquals("order_events", converted(converter, record("k", "{}")).queue());
        SinkRecord other = new SinkRecord("other", 0, null, "k", null, "{}", 1L);
        assertEquals("kafka_other", converted(converter, other).queue());
    }

    @Test
    void tombstonesAreSkippedSentOrRejected() {
        SinkRecord tombstone = record(Schema.STRING_SCHEMA, "k", Schema.OPTIONAL_STRING_SCHEMA, null);
        assertInstanceOf(ConversionOutcome.Skipped.class, new RecordConverter(config()).convert(tombstone));

        EventDraft sent = converted(new RecordConverter(config("pgque.tombstones", "send")), tombstone);
        assertNull(sent.payload());
        assertEquals("k", sent.partitionKey());

        rejected(new RecordConverter(config("pgque.tombstones", "FAIL")), tombstone, "pgque.tombstones=fail");
    }

    @Test
    void dedupKeyIsRenderedWhenOn() {
        RecordConverter converter = new RecordConverter(config(
                "pgque.dedup.key", "${topic}-${partition}-${offset}", "pgque.dedup.ttl.ms", "60000"));
        assertEquals("orders-3-42", converted(converter, record("k", "{}")).dedupKey());
        assertNull(converted(new RecordConverter(config()), record("k", "{}")).dedupKey(), "off by default");
    }

    @Test
    void dedupKeyWithAnEmptyPartIsRejected() {
        RecordConverter converter = new RecordConverter(config(
                "pgque.dedup.key", "${topic}:${header:event-id}", "pgque.dedup.ttl.ms", "60000"));
        rejected(converter, record("k", "{}"), "dedup key: ${header:event-id} is empty for this record");

        ConnectHeaders headers = new ConnectHeaders();
        headers.addString("event-id", "e-77");
        assertEquals("orders:e-77", converted(converter, record(null, "k", null, "{}", headers)).dedupKey());
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.client.Message;
import io.pgque.client.PausedKeys;
import io.pgque.connect.common.template.Template;
import io.pgque.connect.source.config.EventHeaders;
import io.pgque.connect.source.config.SourceConfigDef;
import io.pgque.connect.source.config.ValueFormat;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordFactoryTest {

    private static final Instant CREATED = Instant.parse("2026-01-02T03:04:05.678Z");
    private static final Message EVENT = new Message(42, 7, "order.created", "{\"id\":1,\"items\":[\"a\"]}", 2,
            CREATED, "customer-9", "idem-1", null, "x4");

    private static final ReaderId SLOT_3 = ReaderId.slot("orders", "src", 3, 11);
    private static final ReaderId WORKER_W1 = ReaderId.member("orders", "src", "w1");
    private static final UnreadableEvents.DeadLetters NO_DEAD_LETTERS = (msgId, reason) -> {
        throw new AssertionError("nothing is dead-lettered here");
    };

    private static RecordFactory factory(String topic, ValueFormat format, KafkaPartitionChooser partitions) {
        return new RecordFactory(new TopicRouter(Template.parse("topic", topic,
                SourceConfigDef.TOPIC_PLACEHOLDERS)), RecordValues.of(format), partitions);
    }

    @Test
    void twoDeliveriesOfOneEventAreTwoRecordsEvenWithTheSameContent() {
        RecordFactory records = factory("orders", ValueFormat.STRING, KafkaPartitionChooser.byKey());
        TrackedRecord first = records.create(EVENT, SLOT_3, NO_DEAD_LETTERS, () -> { });
        TrackedRecord again = records.create(EVENT, SLOT_3, NO_DEAD_LETTERS, () -> { });
        assertEquals(first.value(), again.value());
        assertNotEquals(first, again, "identity: each is a delivery of its own, with its own ticket");
        assertEquals(first, first);
        // An exactly-once worker keys a map by every record it sends: one entry per delivery.
        Map<SourceRecord, Integer> keyed = new HashMap<>();
        keyed.put(first, 1);
        keyed.put(again, 2);
        keyed.put(first, 3);
        assertEquals(2, keyed.size());
        assertEquals(3, keyed.get(first));
    }

    @Test
    void anEventBecomesARecordWithItsKeyValueTimeAndProvenance() {
        AtomicInteger delivered = new AtomicInteger();
        TrackedRecord record = factory("orders", ValueFormat.STRING, KafkaPartitionChooser.byKey())
                .create(EVENT, SLOT_3, NO_DEAD_LETTERS, delivered::incrementAndGet);
        assertEquals("orders", record.topic());
        assertNull(record.kafkaPartition(), "the producer hashes the key");
        assertEquals("customer-9", record.key());
        assertEquals(Schema.OPTIONAL_STRING_SCHEMA, record.keySchema());
        assertEquals(EVENT.payload(), record.value());
        assertEquals(CREATED.toEpochMilli(), record.timestamp());
        assertEquals(Map.of("queue", "orders", "consumer", "src", "slot", 3), record.sourcePartition());
        assertEquals(Map.of("batch_id", 7L, "ev_id", 42L), record.sourceOffset());

        Map<String, Object> headers = new HashMap<>();
        for (Header header : record.headers()) {
            headers.put(header.key(), header.value());
        }
        assertEquals(42L, headers.get("pgque.event.id"));
        assertEquals("order.created", headers.get("pgque.event.type"));
        assertEquals(7L, headers.get("pgque.batch.id"));
        assertEquals(3, headers.get("pgque.slot"));
        assertEquals(11L, headers.get("pgque.epoch"));
        assertEquals(2, headers.get("pgque.retry.count"));
        assertEquals("idem-1", headers.get("pgque.extra2"));
        assertFalse(headers.containsKey("pgque.extra3"), "absent extras are left out");
        assertEquals("x4", headers.get("pgque.extra4"));

        record.ticket().delivered();
        assertEquals(1, delivered.get());
    }

    /** A reader whose pauses are recorded: each blocks its key unless {@code blocks} is false. */
    private record Pauses(List<Long> paused, boolean blocks) implements UnreadableEvents.DeadLetters {
        @Override
        public void deadLetter(long msgId, String reason) {
            throw new AssertionError("nothing is dead-lettered here");
        }

        @Override
        public boolean pause(Message message, Duration retryAfter, String reason) {
            paused.add(message.msgId());
            return blocks;
        }
    }

    private static RecordFactory pausing(String topic, ValueFormat format, AtomicInteger pausedCount) {
        return new RecordFactory(new TopicRouter(Template.parse("topic", topic, SourceConfigDef.TOPIC_PLACEHOLDERS)),
                RecordValues.of(format), KafkaPartitionChooser.byKey(),
                UnreadableEvents.of(Map.of(), () -> { }, new UnreadableEvents.Pausing(Duration.ofSeconds(1),
                        pausedCount::incrementAndGet)), EventHeaders.ALL);
    }

    @Test
    void underThePausePolicyAnEventThatCannotBecomeARecordPausesItsKey() {
        AtomicInteger pausedCount = new AtomicInteger();
        AtomicInteger delivered = new AtomicInteger();
        Pauses reader = new Pauses(new ArrayList<>(), true);
        PausedKeys paused = new PausedKeys();
        Message notJson = new Message(44, 7, "t", "{not json", 0, CREATED, "customer-9", null, null, null);
        assertNull(pausing("orders", ValueFormat.JSON, pausedCount).create(notJson, SLOT_3, reader,
                delivered::incrementAndGet, paused));
        assertEquals(List.of(44L), reader.paused());
        assertEquals(1, pausedCount.get());
        assertEquals(1, delivered.get(), "done as far as the batch goes");
        assertTrue(paused.heldBack(new Message(45, 7, "t", "{}", 0, CREATED, "customer-9", null, null, null)));
        assertFalse(paused.heldBack(new Message(46, 7, "t", "{}", 0, CREATED, "customer-8", null, null, null)));

        // No topic for its type: paused as well (under skip it fails the task, as it always did).
        Message untyped = new Message(47, 7, "", "{}", 0, CREATED, "customer-7", null, null, null);
        assertNull(pausing("${type}", ValueFormat.STRING, pausedCount).create(untyped, SLOT_3, reader,
                () -> { }, paused));
        assertEquals(List.of(44L, 47L), reader.paused());
        assertThrows(DataException.class, () -> factory("${type}", ValueFormat.STRING,
                KafkaPartitionChooser.byKey()).create(untyped, SLOT_3, NO_DEAD_LETTERS, () -> { }));

        // Dead-lettered at max_retries instead: nothing held back.
        PausedKeys none = new PausedKeys();
        assertNull(pausing("orders", ValueFormat.JSON, pausedCount).create(notJson, SLOT_3,
                new Pauses(new ArrayList<>(), false), () -> { }, none));
        assertEquals(java.util.Set.of(), none.keys());
    }

    @Test
    void theBytesFormatGivesThePayloadsUtf8WithABytesSchema() {
        TrackedRecord record = factory("orders", ValueFormat.BYTES, KafkaPartitionChooser.byKey())
                .create(EVENT, SLOT_3, NO_DEAD_LETTERS, () -> { });
        assertEquals(Schema.OPTIONAL_BYTES_SCHEMA, record.valueSchema());
        assertArrayEquals(EVENT.payload().getBytes(StandardCharsets.UTF_8), (byte[]) record.value());
        Message none = new Message(43, 7, "t", null, 0, CREATED, "k", null, null, null);
        assertNull(factory("orders", ValueFormat.BYTES, KafkaPartitionChooser.byKey())
                .create(none, SLOT_3, NO_DEAD_LETTERS, () -> { }).value());
    }

    @Test
    void onlyTheChosenHeadersAreWritten() {
        RecordFactory chosen = new RecordFactory(new TopicRouter(Template.parse("topic", "orders",
                SourceConfigDef.TOPIC_PLACEHOLDERS)), RecordValues.of(ValueFormat.STRING), KafkaPartitionChooser.byKey(),
                UnreadableEvents.FAIL, EventHeaders.of(List.of(EventHeaders.EVENT_ID, EventHeaders.EPOCH,
                        EventHeaders.SUBCONSUMER, EventHeaders.EXTRA3)));
        assertEquals(List.of("pgque.event.id=42", "pgque.epoch=11"),
                headersOf(chosen.create(EVENT, SLOT_3, NO_DEAD_LETTERS, () -> { })),
                "no subconsumer in ordered mode, no absent extra");
        assertEquals(List.of("pgque.event.id=42", "pgque.subconsumer=w1"), headersOf(chosen.create(EVENT, WORKER_W1, NO_DEAD_LETTERS,
                () -> { })));

        RecordFactory none = new RecordFactory(new TopicRouter(Template.parse("topic", "orders",
                SourceConfigDef.TOPIC_PLACEHOLDERS)), RecordValues.of(ValueFormat.STRING), KafkaPartitionChooser.byKey(),
                UnreadableEvents.FAIL, EventHeaders.of(List.of()));
        assertEquals(List.of(), headersOf(none.create(EVENT, SLOT_3, NO_DEAD_LETTERS, () -> { })));
        assertEquals(List.of(), headersOf(none.create(EVENT, WORKER_W1, NO_DEAD_LETTERS, () -> { })));
    }

    @Test
    void allHeadersComeInTheirDocumentedOrder() {
        assertEquals(List.of("pgque.event.id=42", "pgque.event.type=order.created", "pgque.batch.id=7", "pgque.slot=3",
                        "pgque.epoch=11", "pgque.retry.count=2", "pgque.extra2=idem-1", "pgque.extra4=x4"),
                headersOf(factory("orders", ValueFormat.STRING, KafkaPartitionChooser.byKey())
                        .create(EVENT, SLOT_3, NO_DEAD_LETTERS, () -> { })));
    }

    @Test
    void anUnknownHeaderIsRefusedNamingTheOnesThereAre() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EventHeaders.of(List.of("pgque.event.id", "pgque.lsn")));
        assertTrue(e.getMessage().contains("pgque.lsn") && e.getMessage().contains("pgque.retry.count"), e.getMessage());
    }

    private static List<String> headersOf(SourceRecord record) {
        List<String> out = new ArrayList<>();
        for (Header header : record.headers()) {
            out.add(header.key() + "=" + header.value());
        }
        return out;
    }

    @Test
    void jsonPayloadsBecomeSchemalessMaps() {
        TrackedRecord record = factory("orders", ValueFormat.JSON, KafkaPartitionChooser.byKey())
                .create(EVENT, ReaderId.slot("orders", "src", 0, 1), NO_DEAD_LETTERS, () -> { });
        assertNull(record.valueSchema());
        assertEquals(Map.of("id", 1, "items", List.of("a")), record.value());
    }

    @Test
    void aPayloadThatIsNotJsonFailsNamingTheEventButNotQuotingIt() {
        Message bad = new Message(5, 9, "t", "secret-ish not json", 0, CREATED, "k", null, null, null);
        DataException e = assertThrows(DataException.class, () ->
                factory("orders", ValueFormat.JSON, KafkaPartitionChooser.byKey()).create(bad, ReaderId.slot("orders", "src", 1, 1), NO_DEAD_LETTERS,
                        () -> { }));
        assertTrue(e.getMessage().contains("event 5 of batch 9 on slot 1"), e.getMessage());
        assertFalse(e.getMessage().contains("secret-ish"), e.getMessage());
    }

    @Test
    void topicTemplateAndSlotPartitioning() {
        TrackedRecord record = factory("pgque.${type}", ValueFormat.STRING, KafkaPartitionChooser.bySlot(3))
                .create(EVENT, ReaderId.slot("orders", "src", 4, 1), NO_DEAD_LETTERS, () -> { });
        assertEquals("pgque.order.created", record.topic());
        assertEquals(1, record.kafkaPartition(), "slot 4 mod 3 partitions");
    }
}

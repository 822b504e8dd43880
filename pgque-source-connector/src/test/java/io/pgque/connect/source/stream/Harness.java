/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.common.template.Template;
import io.pgque.connect.source.config.SourceConfigDef;
import io.pgque.connect.source.config.ValueFormat;
import io.pgque.connect.source.delivery.BatchBoundary;
import io.pgque.connect.source.delivery.Delivery;
import io.pgque.connect.source.metrics.StreamEvents;
import io.pgque.connect.source.record.KafkaPartitionChooser;
import io.pgque.connect.source.record.ReaderId;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.record.RecordValues;
import io.pgque.connect.source.record.TopicRouter;
import io.pgque.connect.source.record.TrackedRecord;
import org.apache.kafka.connect.source.SourceRecord;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A stream over fake readers, driven by hand: polls, and Kafka's acknowledgements when the test says. */
final class Harness {

    static final int CHUNK = 3;
    static final Duration POLL_INTERVAL = Duration.ofMillis(20);

    final List<FakeReader> readers;
    final BatchStream stream;
    final List<SourceRecord> handedOver = new ArrayList<>();
    /** The payload of every record handed over, in order, acknowledged or not. */
    final List<String> payloads = new ArrayList<>();
    final AtomicInteger leasesAcquired = new AtomicInteger();
    final AtomicInteger leasesLost = new AtomicInteger();
    final AtomicInteger sentAhead = new AtomicInteger();
    final AtomicInteger readAheadOpened = new AtomicInteger();
    /** How often the stream closed what reading ahead holds for its readers (the thread, shared windows). */
    final AtomicInteger readAheadsClosed = new AtomicInteger();

    Harness(List<FakeReader> readers, HandOver.Kind kind, BatchBoundary boundary, Duration keepAlive,
            boolean sendAhead) {
        this.readers = readers;
        RecordFactory records = new RecordFactory(new TopicRouter(Template.parse("topic", "t",
                SourceConfigDef.TOPIC_PLACEHOLDERS)), RecordValues.of(ValueFormat.STRING),
                KafkaPartitionChooser.byKey());
        StreamEvents events = new StreamEvents() {
            @Override
            public void leaseAcquired(ReaderId reader) {
                leasesAcquired.incrementAndGet();
            }

            @Override
            public void leaseLost(ReaderId reader) {
                leasesLost.incrementAndGet();
            }

            @Override
            public void batchSentAhead(ReaderId reader) {
                sentAhead.incrementAndGet();
            }

            @Override
            public void batchReadAhead(ReaderId reader) {
                readAheadOpened.incrementAndGet();
            }
        };
        stream = new BatchStream(readers, kind, records, events, Delivery.atLeastOnce(boundary),
                new StreamSettings(CHUNK, POLL_INTERVAL, Duration.ZERO, keepAlive, sendAhead),
                readAheadsClosed::incrementAndGet, () -> "a test");
    }

    /** One reader, no transactions, no keep-alive due during the test, sending ahead where it reads ahead. */
    static Harness of(FakeReader reader) {
        return new Harness(List.of(reader), HandOver.Kind.ONE_CHUNK, BatchBoundary.NONE, Duration.ofHours(1), true);
    }

    /** As {@link #of}, keeping the reader alive on every pass. */
    static Harness keepingAliveEveryPass(FakeReader reader) {
        return new Harness(List.of(reader), HandOver.Kind.ONE_CHUNK, BatchBoundary.NONE, Duration.ZERO, true);
    }

    ReaderState state() {
        return stream.states().get(0);
    }

    /** One poll; what it hands over is remembered as not acknowledged by Kafka yet. */
    List<SourceRecord> poll() throws InterruptedException {
        List<SourceRecord> records = stream.poll();
        if (records != null) {
            handedOver.addAll(records);
            records.forEach(r -> payloads.add((String) r.value()));
        }
        return records;
    }

    /** Polls once and checks it handed over {@code expected} records. */
    List<SourceRecord> pollExpecting(int expected) throws InterruptedException {
        List<SourceRecord> records = poll();
        assertEquals(expected, records == null ? 0 : records.size(), "records handed over");
        return records;
    }

    /** Kafka acknowledges the first {@code count} records handed over and not acknowledged yet. */
    void acknowledge(int count) {
        for (int i = 0; i < count; i++) {
            ((TrackedRecord) handedOver.remove(0)).ticket().delivered();
        }
    }

    /** Kafka acknowledges every record of reader {@code reader} handed over and not acknowledged yet. */
    void acknowledgeFrom(int reader) {
        handedOver.removeIf(r -> {
            if (((String) r.key()).startsWith("k" + reader + "-")) {
                ((TrackedRecord) r).ticket().delivered();
                return true;
            }
            return false;
        });
    }

    void acknowledgeAll() {
        acknowledge(handedOver.size());
    }

    /** Polls, Kafka acknowledging everything at once, until every reader's queue is read and acked. */
    void drain() throws InterruptedException {
        readers.stream().filter(r -> r.ahead != null).forEach(r -> r.ahead.finishFromNowOn());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (readers.stream().anyMatch(r -> r.openBatch() != -1 || r.hasQueued())) {
            assertTrue(System.nanoTime() < deadline, "not drained within 10 s: " + stream.states());
            stream.tickArrived();
            poll();
            acknowledgeAll();
        }
    }
}

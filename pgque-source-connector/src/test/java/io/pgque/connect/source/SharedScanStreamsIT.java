/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.PgQue;
import io.pgque.client.ScanSharing;
import io.pgque.connect.source.config.SourceConfig;
import io.pgque.connect.source.config.ValueFormat;
import io.pgque.connect.source.delivery.BatchBoundary;
import io.pgque.connect.source.delivery.Delivery;
import io.pgque.connect.source.metrics.StreamEvents;
import io.pgque.connect.source.ordered.SlotStreams;
import io.pgque.connect.source.reader.ReadAheadSettings;
import io.pgque.connect.source.record.KafkaPartitionChooser;
import io.pgque.connect.source.record.ReaderId;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.record.RecordValues;
import io.pgque.connect.source.record.TopicRouter;
import io.pgque.connect.source.record.TrackedRecord;
import io.pgque.connect.source.stream.BatchStream;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.pgque.connect.source.HandDrivenTask.assertFirstDeliveriesInSendOrder;
import static io.pgque.connect.source.HandDrivenTask.sendRound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two streams of one connector in one worker (two tasks of two slots each, under different
 * worker ids) given one scan sharing: one scan of a window serves the slots of both, and every
 * event still comes once per key in send order. Without it each stream scans for its own
 * slots only.
 */
class SharedScanStreamsIT {

    private static final int N = 4;
    private static final int ROUNDS = 3;
    private static final int CHUNK = 4;
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static QueueFixture pg;

    @BeforeAll
    static void database() {
        pg = QueueFixture.pooled("shared_scan_it", 8);
    }

    @AfterAll
    static void closePool() {
        pg.closePool();
    }

    @Test
    void theStreamsOfOneScopeReadEachWindowInOneScan() throws Exception {
        Run run = new Run(new ScanSharing("db"));
        run.drive();
        // Each first batch is read on its stream's poll thread: the first slot's scan reads the
        // window for all four slots, the other three come from it.
        assertEquals(4, run.readAheadBeforeAnAck.get(), "every first batch read as a read-ahead");
        assertEquals(3, run.withoutScanBeforeAnAck.get(), "three of them from the one scan");
    }

    @Test
    void withoutAScopeEachStreamScansForItsOwnSlots() throws Exception {
        Run run = new Run(null);
        run.drive();
        assertEquals(4, run.readAheadBeforeAnAck.get());
        assertEquals(2, run.withoutScanBeforeAnAck.get(), "one a stream");
    }

    /** A queue of N slots, three rounds of events on each, and two streams over slots 0-1 and 2-3. */
    private static final class Run {
        final String queue = "shared_scan" + RUNS.incrementAndGet();
        final String consumer = queue + "-src";
        final List<String> keys = new ArrayList<>();
        final List<BatchStream> streams = new ArrayList<>();
        final AtomicInteger acked = new AtomicInteger();
        final AtomicInteger readAheadBeforeAnAck = new AtomicInteger();
        final AtomicInteger withoutScanBeforeAnAck = new AtomicInteger();

        Run(ScanSharing sharing) {
            pg.createQueue(queue);
            pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
            for (int slot = 0; slot < N; slot++) {
                keys.addAll(pg.keysOnSlot("k" + slot, slot, N, 2));
            }
            for (int round = 0; round < ROUNDS; round++) {
                sendRound(pg, queue, keys, round * 5);
            }
            StreamEvents events = new StreamEvents() {
                @Override
                public void batchReadAhead(ReaderId reader) {
                    if (acked.get() == 0) {
                        readAheadBeforeAnAck.incrementAndGet();
                    }
                }

                @Override
                public void batchReadAheadWithoutScan(ReaderId reader) {
                    if (acked.get() == 0) {
                        withoutScanBeforeAnAck.incrementAndGet();
                    }
                }

                @Override
                public void batchAcked(ReaderId reader, int events) {
                    acked.incrementAndGet();
                }
            };
            SourceConfig config = new SourceConfig(HandDrivenTask.props(pg, queue, consumer, "0,1"));
            RecordFactory records = new RecordFactory(new TopicRouter(config.topic()),
                    RecordValues.of(ValueFormat.STRING), KafkaPartitionChooser.byKey());
            for (List<Integer> slots : List.of(List.of(0, 1), List.of(2, 3))) {
                streams.add(SlotStreams.open(PgQue.using(pg.ds).slotConsumer(queue, consumer, N, "task-" + slots.get(0)),
                        slots, records, Duration.ofSeconds(10), Duration.ofMillis(50), CHUNK, pg.ds,
                        Duration.ofMillis(10), events, Delivery.atLeastOnce(BatchBoundary.NONE),
                        new ReadAheadSettings(2, 3, true, sharing)));
            }
        }

        /** Polls the streams in turn, Kafka acknowledging every record at once, until every event came and was acked. */
        void drive() throws Exception {
            List<SourceRecord> delivered = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            int turn = 0;
            try {
                while (!(delivered.stream().map(SourceRecord::value).distinct().count() == (long) keys.size() * ROUNDS * 5
                        && caughtUp())) {
                    assertTrue(System.nanoTime() < deadline, "not all delivered within 30 s: " + delivered.size());
                    List<SourceRecord> batch = streams.get(turn++ % streams.size()).poll();
                    if (batch != null) {
                        delivered.addAll(batch);
                        batch.forEach(r -> ((TrackedRecord) r).ticket().delivered());
                    }
                }
            } finally {
                streams.forEach(s -> s.close(Duration.ZERO));
            }
            assertFirstDeliveriesInSendOrder(delivered, keys, ROUNDS * 5);
        }

        boolean caughtUp() {
            for (int slot = 0; slot < N; slot++) {
                if (pg.pendingEvents(queue, consumer, slot) > 0) {
                    return false;
                }
            }
            return true;
        }
    }
}

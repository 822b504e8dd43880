/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.PgQue;
import io.pgque.connect.source.config.SourceConfig;
import io.pgque.connect.source.config.ValueFormat;
import io.pgque.connect.source.delivery.BatchBoundary;
import io.pgque.connect.source.delivery.Delivery;
import io.pgque.connect.source.config.EventHeaders;
import io.pgque.connect.source.record.KafkaPartitionChooser;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.record.RecordValues;
import io.pgque.connect.source.record.TopicRouter;
import io.pgque.connect.source.record.TrackedRecord;
import io.pgque.connect.source.reader.ReadAheadSettings;
import io.pgque.connect.source.metrics.StreamEvents;
import io.pgque.connect.source.ordered.SlotStreams;
import io.pgque.connect.source.record.ReaderId;
import io.pgque.connect.source.stream.BatchStream;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.pgque.connect.source.HandDrivenTask.N;
import static io.pgque.connect.source.HandDrivenTask.assertFirstDeliveriesInSendOrder;
import static io.pgque.connect.source.HandDrivenTask.sendRound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sending ahead, step by step, with Kafka's acknowledgements given by hand: the first chunk of the
 * batch read ahead goes out while the current batch's last records still wait on Kafka; the
 * current batch is acked only once Kafka has all of it, and the next one opened in the same
 * transaction; a lease lost in between loses nothing, the new owner delivers both batches again.
 *
 * <p>One slot, batches of one tick (10 events of the slot), chunks of 4: a batch goes out as 4, 4
 * and 2 records, and is read ahead in one query (pages of three chunks).
 */
class SlotStreamSendAheadIT {

    private static final int CHUNK = 4;
    private static final int ROUNDS = 3;
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static QueueFixture pg;

    @BeforeAll
    static void database() {
        pg = QueueFixture.pooled("send_ahead_it", 8);
    }

    @AfterAll
    static void closePool() {
        pg.closePool();
    }

    @Test
    void theNextBatchGoesOutBeforeTheCurrentOneIsAckedWhichIsAckedOnlyOnceKafkaHasAllOfIt() throws Exception {
        Slot slot = new Slot("worker");
        List<SourceRecord> delivered = new ArrayList<>();
        List<SourceRecord> ahead = slot.sendTheNextBatchAhead(delivered);
        long first = slot.firstBatch;
        long next = batchOf(ahead);

        // Kafka takes the rest of the first batch: the next pass acks it and opens the next one,
        // whose second chunk goes out as its first one is still on its way.
        acknowledge(slot.lastChunk);
        List<SourceRecord> more = slot.pollUntilRecords();
        delivered.addAll(more);
        assertEquals(next, batchOf(more), "the batch sent ahead goes on");
        assertEquals(next, slot.openBatch(), "batch " + first + " acked, and the batch sent ahead open");
        assertEquals(1, slot.readAheadOpens.get());

        acknowledge(ahead);
        acknowledge(more);
        slot.drainAcknowledgingEverything(delivered);
        assertFirstDeliveriesInSendOrder(delivered, slot.keys, ROUNDS * 5);
        assertEquals(ROUNDS * 10, delivered.size(), "each event once: nothing was delivered twice");
        slot.poller.close(Duration.ofSeconds(1));
    }

    @Test
    void aLeaseLostBeforeTheBatchSentAheadIsOpenedLosesNothing() throws Exception {
        Slot slot = new Slot("first");
        List<SourceRecord> ahead = slot.sendTheNextBatchAhead(new ArrayList<>());
        long first = slot.firstBatch;

        // The first worker stops polling (a long GC pause, say): its lease runs out and another
        // worker takes the slot, finding batch `first` still open.
        QueueFixture.await("the first worker's lease to run out", TTL.multipliedBy(3),
                () -> pg.leaseOwner(slot.queue, slot.consumer, 0) == null);
        Slot thief = new Slot(slot, "thief");
        List<SourceRecord> again = new ArrayList<>();
        List<SourceRecord> taken = thief.pollUntilRecords();
        again.addAll(taken);
        assertEquals(first, batchOf(taken), "the new owner starts with the batch the first one never acked");

        // Kafka now takes the rest of the first worker's batch: its ack and open are refused.
        acknowledge(slot.lastChunk);
        acknowledge(ahead);
        assertEquals(null, slot.poller.poll(), "the fenced worker hands over nothing more");
        assertEquals(1, slot.leasesLost.get(), "it found its lease gone");
        assertEquals(first, slot.openBatch(), "and acked nothing");

        acknowledge(taken);
        thief.drainAcknowledgingEverything(again);
        assertFirstDeliveriesInSendOrder(again, slot.keys, ROUNDS * 5);
        slot.poller.close(Duration.ofMillis(100));
        thief.poller.close(Duration.ofSeconds(1));
    }

    private static long batchOf(List<SourceRecord> records) {
        long batch = header(records.get(0), EventHeaders.BATCH_ID);
        for (SourceRecord r : records) {
            assertEquals(batch, header(r, EventHeaders.BATCH_ID), "one batch per chunk");
        }
        return batch;
    }

    private static long header(SourceRecord record, String name) {
        return ((Number) record.headers().lastWithName(name).value()).longValue();
    }

    private static void acknowledge(List<SourceRecord> records) {
        records.forEach(r -> ((TrackedRecord) r).ticket().delivered());
    }

    /** Slot 0 of a consumer of its own queue, read by one poller. */
    private static final class Slot {
        final String queue;
        final String consumer;
        final List<String> keys;
        final BatchStream poller;
        final AtomicInteger sentAhead = new AtomicInteger();
        final AtomicInteger readAheadOpens = new AtomicInteger();
        final AtomicInteger leasesLost = new AtomicInteger();
        List<SourceRecord> lastChunk;
        long firstBatch;

        /** A new queue with three ticks of 10 events of slot 0 (two keys), read by {@code worker}. */
        Slot(String worker) {
            queue = "ahead" + RUNS.incrementAndGet();
            consumer = queue + "-src";
            pg.createQueue(queue);
            pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
            keys = pg.keysOnSlot("k", 0, N, 2);
            for (int round = 0; round < ROUNDS; round++) {
                sendRound(pg, queue, keys, round * 5);
            }
            poller = poller(worker);
        }

        /** Another worker on {@code other}'s slot. */
        Slot(Slot other, String worker) {
            queue = other.queue;
            consumer = other.consumer;
            keys = other.keys;
            poller = poller(worker);
        }

        private BatchStream poller(String worker) {
            SourceConfig config = new SourceConfig(HandDrivenTask.props(pg, queue, consumer, "0"));
            RecordFactory records = new RecordFactory(new TopicRouter(config.topic()),
                    RecordValues.of(ValueFormat.STRING), KafkaPartitionChooser.byKey());
            return SlotStreams.open(PgQue.using(pg.ds).slotConsumer(queue, consumer, N, worker), List.of(0), records,
                    TTL, Duration.ofMillis(50), CHUNK, pg.ds, Duration.ofMillis(10), new StreamEvents() {
                        @Override
                        public void batchSentAhead(ReaderId reader) {
                            sentAhead.incrementAndGet();
                        }

                        @Override
                        public void batchReadAhead(ReaderId reader) {
                            readAheadOpens.incrementAndGet();
                        }

                        @Override
                        public void leaseLost(ReaderId reader) {
                            leasesLost.incrementAndGet();
                        }
                    }, Delivery.atLeastOnce(BatchBoundary.NONE), new ReadAheadSettings(1, 3, true));
        }

        /**
         * Takes the first batch whole, Kafka acknowledging all but its last chunk, and then the
         * first chunk of the next batch, sent ahead while the first one is still open; returns
         * that chunk. {@link #lastChunk} is what Kafka has not acknowledged of the first batch.
         */
        List<SourceRecord> sendTheNextBatchAhead(List<SourceRecord> delivered) throws InterruptedException {
            firstBatch = sendThroughLastChunkAndAckAllButIt(delivered);
            List<SourceRecord> ahead = pollUntilRecords();
            delivered.addAll(ahead);
            assertNotEquals(firstBatch, batchOf(ahead), "the records handed over are the next batch's");
            assertEquals(CHUNK, ahead.size(), "its first chunk");
            assertEquals(1, sentAhead.get());
            assertEquals(firstBatch, openBatch(), "while batch " + firstBatch + " is still open, not acked");
            return ahead;
        }

        /**
         * Takes the first batch's three chunks, Kafka acknowledging all but the last; returns the
         * batch's id. {@link #lastChunk} is then what Kafka has not acknowledged yet.
         */
        private long sendThroughLastChunkAndAckAllButIt(List<SourceRecord> delivered) throws InterruptedException {
            List<SourceRecord> c1 = pollUntilRecords();
            long batch = batchOf(c1);
            List<SourceRecord> c2 = pollUntilRecords();
            assertEquals(batch, batchOf(c2));
            acknowledge(c1);
            lastChunk = pollUntilRecords();
            assertEquals(batch, batchOf(lastChunk));
            assertEquals(2, lastChunk.size(), "the batch's last chunk");
            acknowledge(c2);
            delivered.addAll(c1);
            delivered.addAll(c2);
            delivered.addAll(lastChunk);
            assertEquals(0, sentAhead.get(), "nothing sent ahead while more than a chunk waits on Kafka");
            return batch;
        }

        /** Polls until records come, 30 s at most. */
        List<SourceRecord> pollUntilRecords() throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                List<SourceRecord> records = poller.poll();
                if (records != null) {
                    return records;
                }
            }
            throw new AssertionError("no records within 30 s");
        }

        /** Polls, Kafka acknowledging every chunk at once, until the slot has no event left and no batch open. */
        void drainAcknowledgingEverything(List<SourceRecord> delivered) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (pg.pendingEvents(queue, consumer, 0) != 0 || openBatch() != -1) {
                assertTrue(System.nanoTime() < deadline, "slot 0 not drained within 30 s");
                List<SourceRecord> records = poller.poll();
                if (records != null) {
                    delivered.addAll(records);
                    acknowledge(records);
                }
            }
        }

        /** The slot's open batch in the engine, -1 when none. */
        long openBatch() {
            return pg.queryLong("select coalesce(s.sub_batch, -1) from pgque.subscription s"
                    + " join pgque.consumer c on c.co_id = s.sub_consumer"
                    + " join pgque.queue q on q.queue_id = s.sub_queue"
                    + " where q.queue_name = ? and c.co_name = pgque.slot_consumer_name(?, 0, ?)", queue, consumer, N);
        }
    }
}

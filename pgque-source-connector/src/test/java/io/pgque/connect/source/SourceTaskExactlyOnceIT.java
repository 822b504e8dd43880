/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.source.TransactionContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.pgque.connect.source.HandDrivenTask.N;
import static io.pgque.connect.source.HandDrivenTask.pollUntilRecords;
import static io.pgque.connect.source.HandDrivenTask.sendRound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exactly-once mode of the task against a real PostgreSQL, driven by hand in place of the worker:
 * the test plays Kafka's part (which offsets were committed with the records) so that a task can
 * die at the exact moment that matters, after Kafka committed and before PostgreSQL was acked.
 */
class SourceTaskExactlyOnceIT {

    private static QueueFixture pg;
    private final List<PgQueSourceTask> tasks = new ArrayList<>();
    /** Kafka's offset store, as far as these tests need it: source partition to committed offset. */
    private final Map<Map<String, ?>, Map<String, Object>> committed = new HashMap<>();

    @BeforeAll
    static void database() {
        pg = new QueueFixture("source_eos_task_it");
    }

    @AfterEach
    void stopTasks() {
        tasks.forEach(PgQueSourceTask::stop);
    }

    @Test
    void aBatchKafkaCommittedIsAckedWithoutBeingSentAgain() throws Exception {
        String queue = "eos_whole";
        List<String> keys = setUp(queue);
        sendRound(pg, queue, keys, 0);

        FakeContext first = new FakeContext(props(queue));
        PgQueSourceTask dying = start(first);
        List<SourceRecord> batch = pollUntilRecords(dying);
        assertEquals(15, batch.size());
        assertSame(batch.get(batch.size() - 1), first.transactionEnds.get(0),
                "the transaction ends after the last record of the batch");
        // Kafka commits the transaction (records and offset); the task dies before it acks.
        commit(batch.get(batch.size() - 1));
        long tickBefore = pg.lastTick(queue, queue, 0);
        awaitLeaseExpiry(queue);

        PgQueSourceTask heir = start(new FakeContext(props(queue)));
        QueueFixture.await("the heir to ack the committed batch", Duration.ofSeconds(15), () -> {
            assertNull(pollQuietly(heir), "nothing of the committed batch is sent again");
            return pg.lastTick(queue, queue, 0) > tickBefore;
        });

        sendRound(pg, queue, keys, 5);
        List<SourceRecord> next = pollUntilRecords(heir);
        assertEquals(values(keys, 5, 10), values(next), "only the new batch, from its first event");
    }

    @Test
    void aBatchPartlyInKafkaResumesAfterItsLastCommittedEvent() throws Exception {
        String queue = "eos_part";
        List<String> keys = setUp(queue);
        sendRound(pg, queue, keys, 0);

        PgQueSourceTask dying = start(new FakeContext(props(queue)));
        List<SourceRecord> batch = pollUntilRecords(dying);
        // Say a transaction boundary fell inside the batch: Kafka holds its first six records.
        commit(batch.get(5));
        awaitLeaseExpiry(queue);

        PgQueSourceTask heir = start(new FakeContext(props(queue)));
        List<SourceRecord> rest = pollUntilRecords(heir);
        assertEquals(values(batch.subList(6, batch.size())), values(rest), "the batch resumes after event 6");

        long tickBefore = pg.lastTick(queue, queue, 0);
        rest.forEach(r -> heir.commitRecord(r, null));
        QueueFixture.await("the heir to ack the batch", Duration.ofSeconds(15), () -> {
            pollQuietly(heir);
            return pg.lastTick(queue, queue, 0) > tickBefore;
        });
    }

    /**
     * A batch larger than {@code pgque.batch.max.events} goes out in chunks, each chunk one Kafka
     * transaction; a task that dies after Kafka committed the first chunk and while the second is
     * out leaves an heir that sends the rest of the batch from the first uncommitted event, in
     * order, in chunks again, and acks the batch after the last one.
     */
    @Test
    void aBatchLargerThanAChunkIsATransactionPerChunkAndResumesAfterTheLastCommittedChunk() throws Exception {
        String queue = "eos_chunks";
        List<String> keys = setUp(queue);
        sendRound(pg, queue, keys, 0);
        List<Object> all = values(keys, 0, 5);

        FakeContext first = new FakeContext(chunked(props(queue)));
        PgQueSourceTask dying = start(first);
        List<SourceRecord> chunk1 = pollUntilRecords(dying);
        assertEquals(all.subList(0, 4), values(chunk1), "a chunk of 4");
        assertSame(chunk1.get(3), first.transactionEnds.get(0), "the transaction ends after the chunk");
        commit(chunk1.get(3));
        chunk1.forEach(r -> dying.commitRecord(r, null));
        List<SourceRecord> chunk2 = pollUntilRecords(dying);
        assertEquals(all.subList(4, 8), values(chunk2), "the next chunk follows on the next poll");
        assertSame(chunk2.get(3), first.transactionEnds.get(1));
        // The task dies with the second chunk's transaction open: Kafka holds the first chunk only.
        awaitLeaseExpiry(queue);

        PgQueSourceTask heir = start(new FakeContext(chunked(props(queue))));
        List<SourceRecord> rest = new ArrayList<>();
        long tickBefore = pg.lastTick(queue, queue, 0);
        QueueFixture.await("the heir to send and ack the rest of the batch", Duration.ofSeconds(30), () -> {
            List<SourceRecord> records = pollQuietly(heir);
            if (records != null) {
                assertTrue(records.size() <= 4, "no poll above a chunk");
                rest.addAll(records);
                records.forEach(r -> heir.commitRecord(r, null));
            }
            return pg.lastTick(queue, queue, 0) > tickBefore;
        });
        assertEquals(all.subList(4, all.size()), values(rest), "the batch resumes after the committed chunk");
    }

    private static Map<String, String> chunked(Map<String, String> props) {
        props.put("pgque.batch.max.events", "4");
        return props;
    }

    private List<String> setUp(String queue) {
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, queue, N, "setup").subscribe();
        return pg.keysOnSlot(queue, 0, N, 3);
    }

    private void commit(SourceRecord last) {
        committed.put(last.sourcePartition(), new HashMap<>(last.sourceOffset()));
    }

    private static void awaitLeaseExpiry(String queue) throws InterruptedException {
        QueueFixture.await("the dead task's lease to run out", Duration.ofSeconds(10),
                () -> pg.leaseOwner(queue, queue, 0) == null);
    }

    private static Map<String, String> props(String queue) {
        Map<String, String> props = HandDrivenTask.props(pg, queue, queue, "0");
        props.put("pgque.delivery.guarantee", "exactly_once");
        props.put("exactly.once.support", "required");
        return props;
    }

    private PgQueSourceTask start(FakeContext context) {
        PgQueSourceTask task = new PgQueSourceTask();
        task.initialize(context);
        task.start(context.configs());
        tasks.add(task);
        return task;
    }

    private static List<SourceRecord> pollQuietly(PgQueSourceTask task) {
        try {
            return task.poll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static List<Object> values(List<SourceRecord> records) {
        List<Object> values = new ArrayList<>();
        records.forEach(r -> values.add(r.value()));
        return values;
    }

    /** The values a round trip of {@code from..to-1} over {@code keys} produces, in send order. */
    private static List<Object> values(List<String> keys, int from, int to) {
        List<Object> values = new ArrayList<>();
        for (int i = from; i < to; i++) {
            for (String key : keys) {
                values.add(key + ":" + i);
            }
        }
        return values;
    }

    /** The worker's side: the test's offset store, a transaction context that records boundaries, no metrics. */
    private final class FakeContext implements SourceTaskContext {
        private final Map<String, String> configs;
        final List<SourceRecord> transactionEnds = new ArrayList<>();

        FakeContext(Map<String, String> configs) {
            this.configs = configs;
        }

        @Override
        public Map<String, String> configs() {
            return configs;
        }

        @Override
        public OffsetStorageReader offsetStorageReader() {
            return new OffsetStorageReader() {
                @Override
                public <T> Map<String, Object> offset(Map<String, T> partition) {
                    return committed.get(partition);
                }

                @Override
                public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
                    Map<Map<String, T>, Map<String, Object>> found = new HashMap<>();
                    partitions.forEach(p -> found.put(p, committed.get(p)));
                    return found;
                }
            };
        }

        @Override
        public TransactionContext transactionContext() {
            return new TransactionContext() {
                @Override
                public void commitTransaction() {
                }

                @Override
                public void commitTransaction(SourceRecord record) {
                    transactionEnds.add(record);
                }

                @Override
                public void abortTransaction() {
                }

                @Override
                public void abortTransaction(SourceRecord record) {
                }
            };
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return null;
        }
    }
}

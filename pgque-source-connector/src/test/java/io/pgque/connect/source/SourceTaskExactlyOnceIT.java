/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.connect.source.offsets.SourceOffsets;
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
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static io.pgque.connect.source.HandDrivenTask.N;
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
    /** The worker's side of each task started. */
    private final Map<PgQueSourceTask, FakeContext> contexts = new HashMap<>();

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
        List<SourceRecord> batch = transaction(dying);
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
        List<SourceRecord> next = transaction(heir);
        assertEquals(values(keys, 5, 10), values(next), "only the new batch, from its first event");
    }

    @Test
    void aBatchPartlyInKafkaResumesAfterItsLastCommittedEvent() throws Exception {
        String queue = "eos_part";
        List<String> keys = setUp(queue);
        sendRound(pg, queue, keys, 0);

        PgQueSourceTask dying = start(new FakeContext(props(queue)));
        List<SourceRecord> batch = transaction(dying);
        // Say a transaction boundary fell inside the batch: Kafka holds its first six records.
        commit(batch.get(5));
        awaitLeaseExpiry(queue);

        PgQueSourceTask heir = start(new FakeContext(props(queue)));
        List<SourceRecord> rest = transaction(heir);
        assertEquals(values(batch.subList(6, batch.size())), values(rest), "the batch resumes after event 6");

        long tickBefore = pg.lastTick(queue, queue, 0);
        rest.forEach(r -> heir.commitRecord(r, null));
        QueueFixture.await("the heir to ack the batch", Duration.ofSeconds(15), () -> {
            pollQuietly(heir);
            return pg.lastTick(queue, queue, 0) > tickBefore;
        });
    }

    /**
     * A batch larger than {@code pgque.batch.max.events} goes out in chunks, two chunks per Kafka
     * transaction (a chunk per poll); a task that dies after Kafka committed the first transaction and
     * while the second is out leaves an heir that sends the rest of the batch from the first
     * uncommitted event, in order, two chunks at most per transaction again, and acks the batch after
     * the last one.
     */
    @Test
    void aBatchLargerThanAChunkGoesOutTwoChunksPerTransactionAndResumesAfterTheLastCommittedOne()
            throws Exception {
        String queue = "eos_chunks";
        List<String> keys = setUp(queue);
        sendRound(pg, queue, keys, 0);
        List<Object> all = values(keys, 0, 5);

        FakeContext first = new FakeContext(chunked(props(queue)));
        PgQueSourceTask dying = start(first);
        List<SourceRecord> first8 = transaction(dying);
        assertEquals(all.subList(0, 8), values(first8), "two chunks of 4");
        assertSame(first8.get(7), first.transactionEnds.get(0), "the transaction ends after the second chunk");
        commit(first8.get(7));
        first8.forEach(r -> dying.commitRecord(r, null));
        List<SourceRecord> last7 = transaction(dying);
        assertEquals(all.subList(8, 15), values(last7), "the rest follows in the next transaction");
        assertSame(last7.get(6), first.transactionEnds.get(1));
        // The task dies with the second transaction open: Kafka holds the first two chunks only.
        awaitLeaseExpiry(queue);

        PgQueSourceTask heir = start(new FakeContext(chunked(props(queue))));
        long tickBefore = pg.lastTick(queue, queue, 0);
        List<SourceRecord> rest = deliverUntilAcked(heir, queue, 8, 0);
        assertEquals(all.subList(8, all.size()), values(rest), "the batch resumes after the committed transaction");
        assertTrue(pg.lastTick(queue, queue, 0) > tickBefore);
    }

    /**
     * A task holding two slots hands both slots' batches over as one Kafka transaction, ending
     * after the last record of the second; each slot's events in its own order.
     * Neither batch is acked before Kafka acknowledged the records, which in exactly-once mode
     * it does only once the transaction committed, however often the task is polled meanwhile;
     * once it did, both are acked.
     */
    @Test
    void oneTransactionCarriesTheBatchesOfBothSlotsAndEachIsAckedOnlyAfterItCommitted() throws Exception {
        String queue = "eos_two_slots";
        List<List<String>> keys = setUpTwoSlots(queue);
        sendRound(pg, queue, both(keys), 0);

        FakeContext context = new FakeContext(props(queue, "0,1"));
        PgQueSourceTask task = start(context);
        List<SourceRecord> records = transaction(task);
        assertPerSlot(keys, 0, 5, records, "the slot's batch, in order");
        assertEquals(1, context.transactionEnds.size(), "one transaction");
        assertSame(records.get(records.size() - 1), context.transactionEnds.get(0),
                "the transaction ends after its last record");

        long tick0 = pg.lastTick(queue, queue, 0);
        long tick1 = pg.lastTick(queue, queue, 1);
        for (int i = 0; i < 5; i++) {
            assertNull(task.poll(), "nothing more to send while the transaction is open");
        }
        assertEquals(tick0, pg.lastTick(queue, queue, 0), "slot 0 not acked before the commit");
        assertEquals(tick1, pg.lastTick(queue, queue, 1), "slot 1 not acked before the commit");

        // Kafka commits: the worker then acknowledges every record of the transaction.
        records.forEach(r -> task.commitRecord(r, null));
        QueueFixture.await("both slots acked after the commit", Duration.ofSeconds(15), () -> {
            assertNull(pollQuietly(task));
            return pg.lastTick(queue, queue, 0) > tick0 && pg.lastTick(queue, queue, 1) > tick1;
        });
    }

    /**
     * The task dies while a transaction holding both slots' batches is open, so Kafka aborts it:
     * nothing of it counts, for either slot. The heir sends both batches whole, each in order,
     * and after the next round only the new events.
     */
    @Test
    void aTaskDyingInATwoSlotTransactionLeavesBothBatchesWholeToItsHeir() throws Exception {
        String queue = "eos_two_slots_abort";
        List<List<String>> keys = setUpTwoSlots(queue);
        sendRound(pg, queue, both(keys), 0);

        PgQueSourceTask dying = start(new FakeContext(props(queue, "0,1")));
        List<SourceRecord> lost = transaction(dying);
        assertEquals(Set.of(0, 1), slotsOf(lost), "the transaction holds both slots' batches");
        awaitLeaseExpiry(queue, 0, 1);

        PgQueSourceTask heir = start(new FakeContext(props(queue, "0,1")));
        assertPerSlot(keys, 0, 5, deliverUntilAcked(heir, queue, 15, 0, 1), "the batch whole, once");
        assertOnlyTheNextRoundIsSent(heir, queue, keys);
    }

    /**
     * Kafka committed a transaction holding both slots' batches (records and both slots'
     * offsets, atomically), and the task died before acking either: the heir acks both
     * without sending anything again.
     */
    @Test
    void aCommittedTwoSlotTransactionIsAckedForBothSlotsWithoutBeingSentAgain() throws Exception {
        String queue = "eos_two_slots_commit";
        List<List<String>> keys = setUpTwoSlots(queue);
        sendRound(pg, queue, both(keys), 0);

        PgQueSourceTask dying = start(new FakeContext(props(queue, "0,1")));
        List<SourceRecord> records = transaction(dying);
        assertEquals(Set.of(0, 1), slotsOf(records), "the transaction holds both slots' batches");
        // The worker writes the last offset of each source partition of the transaction.
        records.forEach(this::commit);
        long tick0 = pg.lastTick(queue, queue, 0);
        long tick1 = pg.lastTick(queue, queue, 1);
        awaitLeaseExpiry(queue, 0, 1);

        PgQueSourceTask heir = start(new FakeContext(props(queue, "0,1")));
        QueueFixture.await("the heir to ack both committed batches", Duration.ofSeconds(15), () -> {
            assertNull(pollQuietly(heir), "nothing of the committed transaction is sent again");
            return pg.lastTick(queue, queue, 0) > tick0 && pg.lastTick(queue, queue, 1) > tick1;
        });
        assertOnlyTheNextRoundIsSent(heir, queue, keys);
    }

    /**
     * A transaction holds at most two chunks per slot of the task, the bound on a task's memory
     * in at-least-once mode too: with a chunk of 4 and two slots each streaming a batch of 15,
     * a transaction holds two chunks of each, the next one the rest of both. Its chunks come one
     * per poll, so the worker sends each while the next is read: four polls of one chunk, and
     * the transaction ends after the last record of the fourth only. (Without reading ahead: a
     * batch read ahead in one query is in memory already, and a transaction takes it whole.)
     */
    @Test
    void aTransactionHoldsAtMostTwoChunksPerSlotOfTheTaskAndComesAChunkPerPoll() throws Exception {
        String queue = "eos_two_slots_chunks";
        List<List<String>> keys = setUpTwoSlots(queue);
        sendRound(pg, queue, both(keys), 0);

        Map<String, String> props = chunked(props(queue, "0,1"));
        props.put("pgque.batch.read.ahead", "false");
        FakeContext context = new FakeContext(props);
        PgQueSourceTask task = start(context);
        List<List<SourceRecord>> polls = new ArrayList<>();
        polls.add(HandDrivenTask.pollUntilRecords(task));
        for (int i = 0; i < 3; i++) {
            assertEquals(0, context.ends, "no transaction ended after poll " + polls.size());
            polls.add(task.poll());
        }
        assertEquals(List.of(4, 4, 4, 4), polls.stream().map(List::size).toList(), "a chunk per poll");
        assertEquals(List.of(0, 0, 1, 1), polls.stream().map(p -> slotOf(p.get(0))).toList(),
                "slot 0's chunks, then slot 1's");
        List<SourceRecord> first = polls.stream().flatMap(List::stream).toList();
        assertEquals(values(keys.get(0), 0, 5).subList(0, 8), values(ofSlot(first, 0)), "two chunks of slot 0");
        assertEquals(values(keys.get(1), 0, 5).subList(0, 8), values(ofSlot(first, 1)), "two chunks of slot 1");
        assertEquals(List.of(first.get(15)), context.transactionEnds, "one transaction, ended after its last record");
        first.forEach(r -> task.commitRecord(r, null));
        List<SourceRecord> rest = transaction(task);
        assertEquals(values(keys.get(0), 0, 5).subList(8, 15), values(ofSlot(rest, 0)), "the rest of slot 0's batch");
        assertEquals(values(keys.get(1), 0, 5).subList(8, 15), values(ofSlot(rest, 1)), "the rest of slot 1's batch");
        assertEquals(List.of(first.get(15), rest.get(13)), context.transactionEnds, "two transactions");
        assertEquals(0, context.pollEnds);
    }

    /**
     * When the slot whose turn comes last in a transaction has nothing, the transaction ends with
     * a poll that returns no records, at once rather than after the poll interval.
     */
    @Test
    void aTransactionWhoseLastSlotHasNothingEndsWithAnEmptyPoll() throws Exception {
        String queue = "eos_empty_end";
        List<List<String>> keys = setUpTwoSlots(queue);
        sendRound(pg, queue, keys.get(0), 0);

        FakeContext context = new FakeContext(props(queue, "0,1"));
        PgQueSourceTask task = start(context);
        List<SourceRecord> records = HandDrivenTask.pollUntilRecords(task);
        assertEquals(values(keys.get(0), 0, 5), values(records), "slot 0's batch");
        assertEquals(0, context.ends, "slot 1 has not had its turn yet");
        // An empty list, not null: null would have waited out the poll interval first.
        assertEquals(List.of(), task.poll(), "slot 1 has nothing");
        assertEquals(1, context.pollEnds, "the transaction ended with that poll");
        assertEquals(List.of(), context.transactionEnds);
    }

    /**
     * A batch read ahead in one query (it fits the read-ahead page of three chunks) is in memory
     * whole: it goes out as one transaction, though it is larger than two chunks, while a batch
     * read the usual way still gives two chunks per transaction. It is acked only after that
     * transaction committed.
     */
    @Test
    void aBatchReadAheadWholeGoesOutAsOneTransaction() throws Exception {
        String queue = "eos_read_ahead";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, queue, N, "setup").subscribe();
        List<String> keys = pg.keysOnSlot(queue, 0, N, 2);
        sendRound(pg, queue, keys, 0);
        sendRound(pg, queue, keys, 5);
        Map<String, String> props = chunked(props(queue));
        props.put("pgque.batch.catchup.max.events", "0"); // a batch per tick: ten events each

        FakeContext context = new FakeContext(props);
        PgQueSourceTask task = start(context);
        List<SourceRecord> first = transaction(task);
        assertEquals(values(keys, 0, 5).subList(0, 8), values(first), "the first batch, read the usual way: two chunks");
        first.forEach(r -> task.commitRecord(r, null));
        List<SourceRecord> rest = transaction(task);
        assertEquals(values(keys, 0, 5).subList(8, 10), values(rest), "then its last chunk");
        long tickBefore = pg.lastTick(queue, queue, 0);
        rest.forEach(r -> task.commitRecord(r, null));

        List<SourceRecord> second = transaction(task);
        assertEquals(values(keys, 5, 10), values(second), "the batch read ahead: three chunks in one transaction");
        assertEquals(List.of(first.get(7), rest.get(1), second.get(9)), context.transactionEnds,
                "three transactions");
        long afterFirst = pg.lastTick(queue, queue, 0);
        assertTrue(afterFirst > tickBefore, "the first batch was acked when the second was opened");
        for (int i = 0; i < 3; i++) {
            assertNull(task.poll(), "nothing more to send while the transaction is open");
        }
        assertEquals(afterFirst, pg.lastTick(queue, queue, 0), "not acked before the commit");
        second.forEach(r -> task.commitRecord(r, null));
        QueueFixture.await("the batch read ahead acked after the commit", Duration.ofSeconds(15), () -> {
            assertNull(pollQuietly(task));
            return pg.lastTick(queue, queue, 0) > afterFirst;
        });
    }

    /** Keys of slot 0 and keys of slot 1, three each, on a queue with a subscribed consumer of N slots. */
    private List<List<String>> setUpTwoSlots(String queue) {
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, queue, N, "setup").subscribe();
        return List.of(pg.keysOnSlot(queue, 0, N, 3), pg.keysOnSlot(queue, 1, N, 3));
    }

    /** Per slot (0 and 1), the records are the values {@code from..to-1} of the slot's keys, in order. */
    private static void assertPerSlot(List<List<String>> keys, int from, int to, List<SourceRecord> records,
                                      String what) {
        for (int slot = 0; slot < keys.size(); slot++) {
            assertEquals(values(keys.get(slot), from, to), values(ofSlot(records, slot)), "slot " + slot + ": " + what);
        }
    }

    /** A next round on both slots: the task sends it whole, and nothing of the round before. */
    private void assertOnlyTheNextRoundIsSent(PgQueSourceTask task, String queue, List<List<String>> keys)
            throws InterruptedException {
        sendRound(pg, queue, both(keys), 5);
        assertPerSlot(keys, 5, 10, deliverUntilAcked(task, queue, 15, 0, 1), "only the new batch");
    }

    private static List<String> both(List<List<String>> keys) {
        List<String> all = new ArrayList<>(keys.get(0));
        all.addAll(keys.get(1));
        return all;
    }

    /**
     * Polls as the worker does, and at every end of a transaction commits it (offsets, then the
     * acknowledgements) until every slot in {@code slots} acked a batch; returns what was sent.
     * No transaction holds more than {@code mostPerSlot} records of a slot.
     */
    private List<SourceRecord> deliverUntilAcked(PgQueSourceTask task, String queue, int mostPerSlot, int... slots)
            throws InterruptedException {
        FakeContext context = contexts.get(task);
        Map<Integer, Long> before = new HashMap<>();
        for (int slot : slots) {
            before.put(slot, pg.lastTick(queue, queue, slot));
        }
        List<SourceRecord> sent = new ArrayList<>();
        List<SourceRecord> open = new ArrayList<>();
        int[] ends = {context.ends};
        QueueFixture.await("slots " + before.keySet() + " to send and ack a batch", Duration.ofSeconds(30), () -> {
            List<SourceRecord> records = pollQuietly(task);
            if (records != null) {
                sent.addAll(records);
                open.addAll(records);
            }
            if (context.ends > ends[0]) {
                ends[0] = context.ends;
                for (int slot = 0; slot < N; slot++) {
                    assertTrue(ofSlot(open, slot).size() <= mostPerSlot,
                            "no transaction above " + mostPerSlot + " records of slot " + slot);
                }
                open.forEach(this::commit);
                open.forEach(r -> task.commitRecord(r, null));
                open.clear();
            }
            return before.entrySet().stream().allMatch(e -> pg.lastTick(queue, queue, e.getKey()) > e.getValue());
        });
        return sent;
    }

    /**
     * Polls as the worker does until the task ends a transaction; its records. The records of
     * one transaction come over several polls, a chunk of one slot's batch per poll.
     */
    private List<SourceRecord> transaction(PgQueSourceTask task) throws InterruptedException {
        FakeContext context = contexts.get(task);
        int ends = context.ends;
        List<SourceRecord> records = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (context.ends == ends || records.isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "no transaction ended within 60 s; records so far: " + records);
            List<SourceRecord> polled = task.poll();
            if (polled != null) {
                records.addAll(polled);
            }
        }
        return records;
    }

    private static List<SourceRecord> ofSlot(List<SourceRecord> records, int slot) {
        return records.stream().filter(r -> slotOf(r) == slot).toList();
    }

    private static Set<Integer> slotsOf(List<SourceRecord> records) {
        Set<Integer> slots = new TreeSet<>();
        records.forEach(r -> slots.add(slotOf(r)));
        return slots;
    }

    private static int slotOf(SourceRecord record) {
        return ((Number) record.sourcePartition().get(SourceOffsets.SLOT)).intValue();
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

    private static void awaitLeaseExpiry(String queue, int... slots) throws InterruptedException {
        int[] expiring = slots.length == 0 ? new int[] {0} : slots;
        QueueFixture.await("the dead task's leases to run out", Duration.ofSeconds(10),
                () -> Arrays.stream(expiring).allMatch(slot -> pg.leaseOwner(queue, queue, slot) == null));
    }

    private static Map<String, String> props(String queue) {
        return props(queue, "0");
    }

    private static Map<String, String> props(String queue, String slots) {
        Map<String, String> props = HandDrivenTask.props(pg, queue, queue, slots);
        props.put("pgque.delivery.guarantee", "exactly_once");
        props.put("exactly.once.support", "required");
        return props;
    }

    private PgQueSourceTask start(FakeContext context) {
        PgQueSourceTask task = new PgQueSourceTask();
        task.initialize(context);
        task.start(context.configs());
        tasks.add(task);
        contexts.put(task, context);
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
        /** The records the task ended a transaction after. */
        final List<SourceRecord> transactionEnds = new ArrayList<>();
        /** Transactions the task ended with a poll, after no particular record. */
        int pollEnds;
        /** Transactions the task ended, either way. */
        int ends;

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
                    pollEnds++;
                    ends++;
                }

                @Override
                public void commitTransaction(SourceRecord record) {
                    transactionEnds.add(record);
                    ends++;
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

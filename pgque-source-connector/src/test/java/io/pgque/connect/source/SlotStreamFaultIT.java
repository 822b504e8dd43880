/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.PgQue;
import io.pgque.connect.source.FaultInjectingDataSource.When;
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
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.TransactionContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static io.pgque.connect.source.HandDrivenTask.N;
import static io.pgque.connect.source.HandDrivenTask.assertFirstDeliveriesInSendOrder;
import static io.pgque.connect.source.HandDrivenTask.sendRound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transient database error at every step of the lease loop — claim and renew, receive (as a
 * first page, or straight into a cursor), open the cursor over the rest of a batch, read a chunk
 * from it, ack (failing before the statement, or after the commit with the answer lost) — and
 * at every occurrence of that step in a run, so it strikes both the slot being served and the
 * side steps for the other slot. Afterwards every slot delivers all its events, each key in
 * send order, and every batch ends acked.
 *
 * <p>The poller is driven by hand with a real PostgreSQL underneath: Kafka's acknowledgements
 * come in bursts (and, for the renewal runs, slot 1's only after more than a third of the lease
 * TTL), so one slot's batch is delivered or in flight while the other slot is served, and the
 * fault can strike a side step after a batch was taken.
 */
class SlotStreamFaultIT {

    private static final int ROUNDS = 3;
    /** Smaller than a round's events per slot (2 keys x 5), so every batch needs a second page. */
    private static final int PAGE = 4;
    private static final Duration TTL = Duration.ofSeconds(3);
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static QueueFixture pg;

    @BeforeAll
    static void database() {
        // Both slots' calls, each slot's cursor and a cursor for each one's batch read ahead.
        pg = QueueFixture.pooled("slot_fault_it", 6);
    }

    @AfterAll
    static void closePool() {
        pg.closePool();
    }

    static Stream<Arguments> faults() {
        List<Arguments> all = new ArrayList<>();
        for (int nth = 1; nth <= 3; nth++) {
            all.add(Arguments.of("claim_slot", When.BEFORE_STATEMENT, nth));
            all.add(Arguments.of("fetch forward", When.BEFORE_STATEMENT, nth));
        }
        // A slot's first batch is read as a first page and a cursor over the rest; as it is larger
        // than a page, the slot's later batches are acked and opened straight into a cursor, in
        // one transaction: from the third occurrence on, receives and acks are of that kind.
        for (int nth = 1; nth <= 4; nth++) {
            all.add(Arguments.of("receive_partitioned", When.BEFORE_STATEMENT, nth));
            all.add(Arguments.of("ack_partitioned", When.BEFORE_STATEMENT, nth));
            all.add(Arguments.of("ack_partitioned", When.AFTER_COMMIT, nth));
        }
        for (int nth = 1; nth <= 2; nth++) {
            all.add(Arguments.of("read_batch_partitioned", When.BEFORE_STATEMENT, nth));
        }
        return all.stream();
    }

    /** Without read-ahead: every batch is received once the one before it is acked. */
    @ParameterizedTest(name = "{0} fails {1}, occurrence {2}")
    @MethodSource("faults")
    void everySlotDeliversAllItsEventsInOrderAfterATransientError(String step, When when, int nth) throws Exception {
        Run run = new Run(false, 1, Transactions.NONE);
        run.faulty.arm(step, when, nth);
        // Renewals are due only once a batch has waited on Kafka for a third of the TTL: slot 1's
        // batches wait that long, while slot 0 goes on and is served in between.
        run.driveToTheEnd(step.equals("claim_slot") ? TTL.dividedBy(2) : Duration.ZERO, true);
    }

    static Stream<Arguments> readAheadFaults() {
        List<Arguments> all = new ArrayList<>();
        for (int nth = 1; nth <= 3; nth++) {
            // Reading ahead happens on a thread of its own; a failure there only means the next
            // batch is received the usual way, and is not reported. With pages of one chunk, a
            // batch (10 events of the slot) is larger than a page: read ahead into a cursor, over
            // the query the engine hands out.
            all.add(Arguments.of("read_ahead_after_query", When.BEFORE_STATEMENT, nth, false, 1));
            all.add(Arguments.of("FROM pgque.event_", When.BEFORE_STATEMENT, nth, false, 1));
            // With pages of three chunks it fits one: the engine hands out the query, the reader
            // runs it, for both slots of the task at once; one scan serves the two slots' batches
            // of a window, and two windows are read ahead.
            all.add(Arguments.of("read_ahead_after_query", When.BEFORE_STATEMENT, nth, false, 3));
            if (nth <= 2) {
                all.add(Arguments.of("FROM pgque.event_", When.BEFORE_STATEMENT, nth, false, 3));
            }
            // Acking a batch and opening the one read ahead is one transaction on the poll thread.
            for (int pageChunks : new int[] {1, 3}) {
                all.add(Arguments.of("open_read_ahead_partitioned", When.BEFORE_STATEMENT, nth, true, pageChunks));
                all.add(Arguments.of("open_read_ahead_partitioned", When.AFTER_COMMIT, nth, true, pageChunks));
            }
        }
        return all.stream();
    }

    /** With read-ahead: each slot's next batch is read while the current one is out. */
    @ParameterizedTest(name = "read-ahead, pages of {4} chunks: {0} fails {1}, occurrence {2}")
    @MethodSource("readAheadFaults")
    void withReadAheadEverySlotDeliversAllItsEventsInOrderAfterATransientError(String step, When when, int nth,
                                                                              boolean reported, int pageChunks)
            throws Exception {
        Run run = new Run(true, pageChunks, Transactions.NONE);
        run.faulty.arm(step, when, nth);
        run.driveToTheEnd(Duration.ZERO, reported);
        // Each slot's batches after the first are read ahead (the first too where it fits a page), fault or not.
        assertTrue(run.readAheadOpens.get() >= 1, "batches were opened as read ahead: " + run.readAheadOpens);
        if (pageChunks > 1) {
            // Read ahead in one query, so sent ahead too: the fault also strikes the ack and open
            // of a batch whose first records are out already.
            assertTrue(run.sentAhead.get() >= 1, "batches were sent ahead: " + run.sentAhead);
        } else {
            assertEquals(0, run.sentAhead.get(), "a batch read ahead into a cursor is not sent ahead");
        }
    }

    static Stream<Arguments> twoAheadFaults() {
        return Stream.of(1, 2, 3).map(nth -> Arguments.of("read_ahead_after_query", When.BEFORE_STATEMENT, nth));
    }

    /**
     * A poller of one slot reads two batches ahead (engine 0.3.4): once the slot's next batch is
     * read ahead in one query, the batch after it is read too, before the next one is open. Both
     * reads are the same call, so the first three of them fail in turn, the next batch's and the
     * one after's. A failure there is not reported: that batch is read ahead, or received, later.
     */
    @ParameterizedTest(name = "a poller per slot: {0} fails {1}, occurrence {2}")
    @MethodSource("twoAheadFaults")
    void withAPollerPerSlotEverySlotDeliversAllItsEventsInOrderAfterAFailedReadTwoAhead(String step, When when, int nth)
            throws Exception {
        Run run = new Run(true, 3, Transactions.NONE, true);
        run.faulty.arm(step, when, nth);
        run.driveToTheEnd(Duration.ZERO, false);
        assertTrue(run.readAheadOpens.get() >= 1, "batches were opened as read ahead: " + run.readAheadOpens);
        assertTrue(run.sentAhead.get() >= 1, "batches were sent ahead: " + run.sentAhead);
    }

    /**
     * The task's two slots stand at the same ticks: the first to read ahead scans each window for
     * both, and the other's batch of that window is read from it (the metric
     * {@code batches-read-ahead-without-scan-total}); every event still comes once, in order.
     */
    @Test
    void theSlotsOfAPollerReadAheadInOneScanOfEachWindow() throws Exception {
        Run run = new Run(true, 3, Transactions.NONE);
        run.drive(Duration.ZERO);
        assertEquals(0, run.failures);
        assertFirstDeliveriesInSendOrder(run.delivered, run.keys, ROUNDS * 5);
        assertTrue(run.readAheadWithoutScan.get() >= 1,
                "a batch was read ahead without a scan of its own: " + run.readAheadWithoutScan);
        assertTrue(run.readAheadWithoutScan.get() < run.readAheadOpens.get(),
                "the scans were made by the other slot's read-aheads: " + run.readAheadWithoutScan + " of "
                        + run.readAheadOpens);
    }

    /**
     * A new lease's first batch is read as a read-ahead too (engine 0.4.2): the task's two slots
     * start at the same tick, and the first one's read scans that window for both, so the other
     * slot's first batch comes without a scan of its own.
     */
    @Test
    void theFirstBatchesOfAPollersSlotsComeFromOneScan() throws Exception {
        Run run = new Run(true, 3, Transactions.NONE);
        run.drive(Duration.ZERO);
        assertEquals(0, run.failures);
        assertFirstDeliveriesInSendOrder(run.delivered, run.keys, ROUNDS * 5);
        assertEquals(2, run.readAheadBeforeAnAck.get(), "both first batches were read as read-aheads");
        assertEquals(1, run.withoutScanBeforeAnAck.get(), "one of them from the other's scan");
    }

    static Stream<Arguments> transactionFaults() {
        return readAheadFaults().filter(a -> (int) a.get()[4] == 3);
    }

    /**
     * In Kafka transactions (exactly-once): a poll hands over every slot's chunks, a batch read
     * ahead in one query whole, and Kafka acknowledges a poll's records all at once, when its
     * transaction commits.
     */
    @ParameterizedTest(name = "transactions, pages of {4} chunks: {0} fails {1}, occurrence {2}")
    @MethodSource("transactionFaults")
    void inTransactionsEverySlotDeliversAllItsEventsInOrderAfterATransientError(String step, When when, int nth,
                                                                                boolean reported, int pageChunks)
            throws Exception {
        Run run = new Run(true, pageChunks, Transactions.WORKER);
        run.faulty.arm(step, when, nth);
        run.driveToTheEnd(Duration.ZERO, reported);
        assertInTransactions(run);
    }

    static Stream<Arguments> taskDrawnTransactionFaults() {
        List<Arguments> all = new ArrayList<>(transactionFaults().toList());
        for (int nth = 1; nth <= 3; nth++) {
            // No read-ahead (pages of 0 chunks): a batch's second chunk of a transaction is read
            // through its cursor on a poll of its own, with the first chunk already out; and a
            // lease renewal fails while a transaction is half handed over.
            all.add(Arguments.of("fetch forward", When.BEFORE_STATEMENT, nth, true, 0));
            all.add(Arguments.of("claim_slot", When.BEFORE_STATEMENT, nth, true, 0));
        }
        return all.stream();
    }

    /**
     * In Kafka transactions the task draws ({@code transaction.boundary=connector}): the chunks
     * of a transaction come a chunk per poll, and Kafka acknowledges them all once the task ended
     * the transaction. A fault between two chunks of one transaction leaves it open; the next
     * poll goes on with it.
     */
    @ParameterizedTest(name = "transactions the task draws, read-ahead pages of {4} chunks: {0} fails {1}, "
            + "occurrence {2}")
    @MethodSource("taskDrawnTransactionFaults")
    void inTransactionsTheTaskDrawsEverySlotDeliversAllItsEventsInOrderAfterATransientError(
            String step, When when, int nth, boolean reported, int pageChunks) throws Exception {
        Run run = new Run(pageChunks > 0, Math.max(pageChunks, 1), Transactions.TASK);
        run.faulty.arm(step, when, nth);
        // As without transactions: renewals fall due only while slot 1's transactions wait on Kafka.
        run.driveToTheEnd(step.equals("claim_slot") ? TTL.dividedBy(2) : Duration.ZERO, reported);
        if (pageChunks > 0) {
            assertInTransactions(run);
        }
        assertTrue(run.mostChunksInATransaction > 1, "a transaction came over several polls: at most "
                + run.mostChunksInATransaction + " chunks");
    }

    private static void assertInTransactions(Run run) {
        assertTrue(run.readAheadOpens.get() >= 1, "batches were opened as read ahead: " + run.readAheadOpens);
        assertEquals(0, run.sentAhead.get(), "nothing is sent ahead in Kafka transactions");
        assertTrue(run.mostOfASlotInAPoll > 2 * PAGE, "a batch read ahead (10 events of the slot) went out whole in "
                + "one transaction, though larger than two chunks: at most " + run.mostOfASlotInAPoll);
    }

    /** Who ends Kafka transactions, if there are any. */
    private enum Transactions { NONE, WORKER, TASK }

    /** The worker's side where the task draws the boundaries: whether it ended a transaction since asked. */
    private static final class TaskDrawn implements TransactionContext {
        private boolean ended;

        @Override
        public void commitTransaction() {
            ended = true;
        }

        @Override
        public void commitTransaction(SourceRecord record) {
            ended = true;
        }

        @Override
        public void abortTransaction() {
            throw new AssertionError("the task never aborts");
        }

        @Override
        public void abortTransaction(SourceRecord record) {
            throw new AssertionError("the task never aborts");
        }

        boolean takeEnd() {
            boolean was = ended;
            ended = false;
            return was;
        }
    }

    /**
     * The case the generic runs may miss: a batch was taken in a pass, and then renewing the
     * other slot's lease (its batch still waiting on Kafka) fails. The batch must still be handed
     * over and the failure reported on the next poll, or its slot would count it in flight
     * forever, renewing its lease without progress.
     */
    @Test
    void aRenewalFailingAfterABatchWasTakenLosesNothing() throws Exception {
        Run run = new Run(false, 1, Transactions.NONE);
        // One batch of each slot out, none acknowledged by Kafka yet.
        List<SourceRecord> slot0 = null;
        List<SourceRecord> slot1 = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (slot0 == null || slot1 == null) {
            assertTrue(System.nanoTime() < deadline, "no batch of each slot within 30 s");
            List<SourceRecord> batch = run.poll();
            if (batch != null) {
                run.delivered.addAll(batch);
                if (header(batch.get(0), EventHeaders.SLOT) == 0) {
                    slot0 = batch;
                } else {
                    slot1 = batch;
                }
            }
        }
        long slot1Taken = System.nanoTime();
        // Kafka takes slot 0's batch, so the next pass acks it and reads slot 0's next batch;
        // slot 1's lease falls due for renewal a third of the TTL after its batch went out.
        acknowledge(slot0);
        QueueFixture.await("slot 1's renewal to fall due", TTL, () ->
                System.nanoTime() - slot1Taken > TTL.dividedBy(3).toNanos() + Duration.ofMillis(100).toNanos());
        run.faulty.arm("claim_slot", When.BEFORE_STATEMENT, 1);
        List<SourceRecord> next = run.poll();
        assertEquals(1, run.faulty.injected(), "the renewal failed");
        assertTrue(next != null && header(next.get(0), EventHeaders.SLOT) == 0,
                "slot 0's next batch was handed over despite the failure");
        run.delivered.addAll(next);
        run.held.add(new Held(slot1, System.nanoTime()));
        run.held.add(new Held(next, System.nanoTime()));
        run.driveToTheEnd(Duration.ZERO, true);
    }

    private static void acknowledge(List<SourceRecord> batch) {
        batch.forEach(r -> ((TrackedRecord) r).ticket().delivered());
    }

    /** One queue with two slots, three rounds of events on both, and a poller over faulty connections. */
    private static final class Run {
        final String queue = "fault" + RUNS.incrementAndGet();
        final String consumer = queue + "-src";
        final List<String> keys = new ArrayList<>();
        final FaultInjectingDataSource faulty = new FaultInjectingDataSource(pg.ds);
        /** One poller for both slots, or one per slot (each then reading two batches ahead). */
        final List<BatchStream> pollers;
        private int turn;
        final List<SourceRecord> delivered = new ArrayList<>();
        final List<Held> held = new ArrayList<>();
        final AtomicInteger readAheadOpens = new AtomicInteger();
        final AtomicInteger sentAhead = new AtomicInteger();
        final AtomicInteger readAheadWithoutScan = new AtomicInteger();
        final AtomicInteger acked = new AtomicInteger();
        final AtomicInteger readAheadBeforeAnAck = new AtomicInteger();
        final AtomicInteger withoutScanBeforeAnAck = new AtomicInteger();
        /** Most records of one slot a poll (or a transaction the task draws) may hand over. */
        final int perSlotPerPoll;
        long mostOfASlotInAPoll;
        final boolean transactional;
        /** Set where the task draws the transactions: what has come of the open one. */
        final TaskDrawn drawn;
        final List<SourceRecord> openTransaction = new ArrayList<>();
        int chunksInOpenTransaction;
        int mostChunksInATransaction;
        int failures;

        Run(boolean readAhead, int readAheadPageChunks, Transactions transactions) {
            this(readAhead, readAheadPageChunks, transactions, false);
        }

        Run(boolean readAhead, int readAheadPageChunks, Transactions transactions, boolean pollerPerSlot) {
            this.transactional = transactions != Transactions.NONE;
            this.drawn = transactions == Transactions.TASK ? new TaskDrawn() : null;
            pg.createQueue(queue);
            pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
            keys.addAll(pg.keysOnSlot("a", 0, N, 2));
            keys.addAll(pg.keysOnSlot("b", 1, N, 2));
            for (int round = 0; round < ROUNDS; round++) {
                sendRound(pg, queue, keys, round * 5);
            }
            // Without transactions one chunk per poll; with them, two chunks of a batch streamed
            // through a cursor or a batch read ahead in one query whole, per slot.
            perSlotPerPoll = transactional ? PAGE * Math.max(2, readAheadPageChunks) : PAGE;
            BatchBoundary boundary = drawn != null ? BatchBoundary.of(drawn, true)
                    : transactional ? BatchBoundary.WORKER : BatchBoundary.NONE;
            StreamEvents events = new StreamEvents() {
                @Override
                public void batchReadAhead(ReaderId reader) {
                    readAheadOpens.incrementAndGet();
                    if (acked.get() == 0) {
                        readAheadBeforeAnAck.incrementAndGet();
                    }
                }

                @Override
                public void batchReadAheadWithoutScan(ReaderId reader) {
                    readAheadWithoutScan.incrementAndGet();
                    if (acked.get() == 0) {
                        withoutScanBeforeAnAck.incrementAndGet();
                    }
                }

                @Override
                public void batchAcked(ReaderId reader, int events) {
                    acked.incrementAndGet();
                }

                @Override
                public void batchSentAhead(ReaderId reader) {
                    sentAhead.incrementAndGet();
                }
            };
            pollers = (pollerPerSlot ? List.of(List.of(0), List.of(1)) : List.of(List.of(0, 1))).stream()
                    .map(slots -> poller(faulty, queue, consumer, slots, readAhead, readAheadPageChunks, boundary, events))
                    .toList();
        }

        /** The next poll, of each poller in turn. */
        List<SourceRecord> poll() throws InterruptedException {
            return pollers.get(turn++ % pollers.size()).poll();
        }

        /**
         * Polls, with Kafka acknowledging in bursts, until every event was delivered and every
         * batch acked; then checks the fault struck once, was reported if {@code reported}, and
         * per key the first deliveries follow send order.
         */
        void driveToTheEnd(Duration slowSlotDelay, boolean reported) throws Exception {
            drive(slowSlotDelay);
            assertEquals(1, faulty.injected(), "the fault struck once");
            if (reported) {
                assertTrue(failures >= 1, "the fault was reported as retriable");
            } else {
                assertEquals(0, failures, "a failed read-ahead is not reported: the batch is received instead");
            }
            assertFirstDeliveriesInSendOrder(delivered, keys, ROUNDS * 5);
            assertTrue(readAheadWithoutScan.get() <= readAheadOpens.get(),
                    "batches read ahead without a scan are among those read ahead");
        }

        /** Polls, with Kafka acknowledging in bursts, until every event was delivered and every batch acked. */
        void drive(Duration slowSlotDelay) throws Exception {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            try {
                while (!(allSeen(delivered, keys) && held.isEmpty() && caughtUp(queue, consumer))) {
                    assertTrue(System.nanoTime() < deadline, "not all events delivered and acked within 30 s "
                            + "after the fault; got " + delivered.size() + " records");
                    List<SourceRecord> batch = null;
                    try {
                        batch = poll();
                    } catch (RetriableException e) {
                        failures++;
                    }
                    if (drawn != null) {
                        if (batch != null && !batch.isEmpty()) {
                            openTransaction.addAll(batch);
                            chunksInOpenTransaction++;
                        }
                        if (!drawn.takeEnd()) {
                            if (batch != null) {
                                continue; // the transaction goes on: nothing of it is acknowledged yet
                            }
                        } else {
                            // The transaction commits: from here on it is one "poll" of the checks below.
                            batch = new ArrayList<>(openTransaction);
                            mostChunksInATransaction = Math.max(mostChunksInATransaction, chunksInOpenTransaction);
                            openTransaction.clear();
                            chunksInOpenTransaction = 0;
                        }
                    }
                    long now = System.nanoTime();
                    if (batch != null && !batch.isEmpty()) {
                        for (int slot = 0; slot < N; slot++) {
                            int fromSlot = slot;
                            long count = batch.stream().filter(r -> header(r, EventHeaders.SLOT) == fromSlot).count();
                            mostOfASlotInAPoll = Math.max(mostOfASlotInAPoll, count);
                            assertTrue(count <= perSlotPerPoll, "at most " + perSlotPerPoll + " records of slot " + slot
                                    + " per poll, also of a batch read ahead in one query of several: " + count);
                        }
                        delivered.addAll(batch);
                        // A transaction the task drew holds both slots' records, usually slot 0's first.
                        boolean slow = drawn != null ? batch.stream().anyMatch(r -> header(r, EventHeaders.SLOT) == 1)
                                : header(batch.get(0), EventHeaders.SLOT) == 1;
                        held.add(new Held(batch, now + (slow ? slowSlotDelay.toNanos() : 0)));
                    }
                    // Kafka acknowledges in bursts: once two batches are out (or nothing new came),
                    // every one that is due, so a pass can find a delivered batch besides the one
                    // it serves and ack it on the side. Without transactions, each slot's newest
                    // chunk waits for a later burst (until nothing new comes), as the last records
                    // of a batch wait on Kafka while the next batch could already go out.
                    if (held.size() >= 2 || batch == null) {
                        List<Held> newest = !transactional && batch != null ? newestPerSlot(held) : List.of();
                        held.removeIf(h -> {
                            if (newest.contains(h) || now < h.ackAt()) {
                                return false;
                            }
                            acknowledge(h.records());
                            return true;
                        });
                    }
                }
            } finally {
                pollers.forEach(p -> p.close(Duration.ofSeconds(1)));
            }
        }
    }

    private static BatchStream poller(FaultInjectingDataSource ds, String queue, String consumer, List<Integer> slots,
                                     boolean readAhead, int readAheadPageChunks, BatchBoundary boundary,
                                     StreamEvents events) {
        Map<String, String> props = HandDrivenTask.props(pg, queue, consumer,
                slots.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",")));
        SourceConfig config = new SourceConfig(props);
        RecordFactory records = new RecordFactory(new TopicRouter(config.topic()),
                RecordValues.of(ValueFormat.STRING), KafkaPartitionChooser.byKey());
        return SlotStreams.open(PgQue.using(ds).slotConsumer(queue, consumer, N, "faulty-" + queue), slots,
                records, TTL, Duration.ofMillis(50), PAGE, ds, Duration.ofMillis(10), events,
                Delivery.atLeastOnce(boundary),
                // Sending ahead as a task does by default (it needs batches read ahead in one query).
                readAhead ? new ReadAheadSettings(2, readAheadPageChunks, true) : ReadAheadSettings.OFF);
    }

    /** Of chunks each of one slot's records (no transactions), the last one held of each slot. */
    private static List<Held> newestPerSlot(List<Held> held) {
        Map<Long, Held> last = new java.util.HashMap<>();
        for (Held h : held) {
            last.put(header(h.records().get(0), EventHeaders.SLOT), h);
        }
        return new ArrayList<>(last.values());
    }

    private static boolean caughtUp(String queue, String consumer) {
        return pg.pendingEvents(queue, consumer, 0) == 0 && pg.pendingEvents(queue, consumer, 1) == 0;
    }

    private static boolean allSeen(List<SourceRecord> delivered, List<String> keys) {
        return delivered.stream().map(r -> (String) r.value()).distinct().count() == (long) keys.size() * ROUNDS * 5;
    }

    private static long header(SourceRecord record, String name) {
        return ((Number) record.headers().lastWithName(name).value()).longValue();
    }

    private record Held(List<SourceRecord> records, long ackAt) {
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static io.pgque.client.ClientTesting.await;
import static io.pgque.client.ClientTesting.tick;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Partitioned consumers through {@link SlotConsumer}. Key routing for N = 2 (pinned by the
 * engine spec): tenant-a to slot 0, tenant-b and tenant-c to slot 1.
 */
class SlotConsumerIT {

    private static final Duration TTL = Duration.ofSeconds(30);

    private static DataSource ds;
    private static PgQue pq;

    @BeforeAll
    static void setUp() {
        ds = ClientTesting.newDatabase("client_slots").installEngine().superuser();
        pq = PgQue.using(ds);
    }

    private static String queue(String name) {
        pq.queues().create(name);
        return name;
    }

    private static void send(String q, String key, String payload) {
        pq.producer().send(q, Event.of("t", payload).withPartitionKey(key));
    }

    @Test
    void keysGoToTheirSlotAndEachSlotToItsLeaseHolder() {
        String q = queue("q_route");
        SlotConsumer w1 = pq.slotConsumer(q, "g", 2, "w1");
        SlotConsumer w2 = pq.slotConsumer(q, "g", 2, "w2");
        w1.subscribe();
        w2.subscribe();
        assertEquals(List.of(0, 1, 1, 0), List.of(w1.slotOf("tenant-a"), w1.slotOf("tenant-b"),
                w1.slotOf("tenant-c"), w1.slotOf(null)));
        send(q, "tenant-a", "a1");
        send(q, "tenant-b", "b1");
        send(q, "tenant-c", "c1");
        send(q, "tenant-a", "a2");
        tick(pq, q);

        SlotLease lease0 = w1.slot(0).claim(TTL).orElseThrow();
        assertTrue(w2.slot(0).claim(TTL).isEmpty(), "slot 0 is w1's");
        assertEquals(lease0, w1.slot(0).claim(TTL).orElseThrow(), "renewal keeps the epoch");
        w2.slot(1).claim(TTL).orElseThrow();

        assertEquals(List.of("a1", "a2"), payloads(w1.slot(0).receive().orElseThrow()));
        assertEquals(List.of("b1", "c1"), payloads(w2.slot(1).receive().orElseThrow()));
        assertThrows(SlotFencedException.class, () -> w2.slot(0).receive());
        w1.slot(0).ack();
        w2.slot(1).ack();
        assertThrows(BatchNotFoundException.class, () -> w1.slot(0).ack());

        List<SlotStatus> status = w1.status();
        assertEquals(2, status.size());
        assertEquals("w1", status.get(0).leaseOwner());
        assertEquals("w2", status.get(1).leaseOwner());
        assertEquals(2, status.get(1).n());
        assertEquals(lease0.epoch(), status.get(0).epoch());

        assertTrue(w1.slot(0).release());
        assertFalse(w1.slot(0).release());
        assertFalse(w1.slot(1).release(), "not w1's to release");
        assertNull(w1.status().get(0).leaseOwner());
        w1.unsubscribe();
        assertTrue(w1.status().isEmpty());
    }

    /**
     * A new queue {@code q} with 250 events in one batch (every fifth of tenant-b, slot 1, the
     * rest of tenant-a, slot 0; payload a{i}), and a worker of N = 2 holding slot 0.
     */
    private static SlotConsumer slot0AfterTenantRound(String q) {
        queue(q);
        SlotConsumer w = pq.slotConsumer(q, "g", 2, "w");
        w.subscribe();
        List<Event> events = IntStream.range(0, 250)
                .mapToObj(i -> Event.of("t", "a" + i).withPartitionKey(i % 5 == 0 ? "tenant-b" : "tenant-a"))
                .collect(Collectors.toList());
        pq.producer().sendBatch(q, events);
        tick(pq, q);
        w.slot(0).claim(TTL).orElseThrow();
        return w;
    }

    /** Two ticks, each with a0..a2 (then b0..b2) on slot 0 and one event on slot 1; slot 0 claimed by w. */
    private static SlotConsumer slot0InTwoTicks(String q) {
        queue(q);
        SlotConsumer w = pq.slotConsumer(q, "g", 2, "w");
        w.subscribe();
        for (String round : List.of("a", "b")) {
            for (int i = 0; i < 3; i++) {
                send(q, "tenant-a", round + i);
            }
            send(q, "tenant-b", round + "-other-slot");
            tick(pq, q);
        }
        w.slot(0).claim(TTL).orElseThrow();
        return w;
    }

    @Test
    void slotBatchLargerThanThePageIsReadWhole() {
        SlotConsumer w = slot0AfterTenantRound("q_slot_pages");
        Batch batch = w.slot(0).receive(100).orElseThrow();
        assertEquals(200, batch.size());
        assertTrue(batch.messages().stream().allMatch(m -> m.partitionKey().equals("tenant-a")));
        for (int i = 1; i < batch.size(); i++) {
            assertTrue(batch.messages().get(i - 1).msgId() < batch.messages().get(i).msgId());
        }
        w.slot(0).ack();
    }

    /**
     * A batch read as a first page and the rest through a cursor, chunk by chunk: every event of
     * the slot once, in order; while the cursor is open the slot's lease row is free (a renewal
     * on another connection goes through at once) and another worker's cursor is refused.
     */
    @Test
    void aBatchIsStreamedInChunksThroughACursorThatHoldsNoLock() throws Exception {
        String q = "q_slot_cursor";
        SlotConsumer w = slot0AfterTenantRound(q);
        BatchPage first = w.slot(0).receivePage(30).orElseThrow();
        assertTrue(first.full());
        assertEquals(30, first.messages().size());
        assertThrows(SlotFencedException.class,
                () -> pq.slotConsumer(q, "g", 2, "intruder").slot(0).openRest(ds, first.batchId(), first.lastMsgId()));

        List<Message> all = new java.util.ArrayList<>(first.messages());
        int chunks = 0;
        try (BatchCursor rest = w.slot(0).openRest(ds, first.batchId(), first.lastMsgId())) {
            // The cursor holds no row lock: a renewal on another connection does not wait for it.
            java.util.concurrent.CompletableFuture<Optional<SlotLease>> renewal =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> w.slot(0).claim(TTL));
            assertTrue(renewal.get(10, java.util.concurrent.TimeUnit.SECONDS).isPresent());
            List<Message> chunk;
            while (!(chunk = rest.next(40)).isEmpty()) {
                assertTrue(chunk.size() <= 40);
                all.addAll(chunk);
                chunks++;
            }
            assertTrue(rest.exhausted());
            assertEquals(List.of(), rest.next(40));
        }
        assertEquals(5, chunks, "170 events after the first page, 40 at a time");
        assertEquals(200, all.size());
        assertEquals(IntStream.range(0, 250).filter(i -> i % 5 != 0).mapToObj(i -> "a" + i).toList(),
                all.stream().map(Message::payload).toList());
        w.slot(0).ack();
        assertThrows(BatchNotFoundException.class, () -> w.slot(0).openRest(ds, first.batchId(), first.lastMsgId()));
    }

    /**
     * A first page is full only when the batch goes on past it: a batch of exactly the page's size
     * is whole (so no reader opens a cursor over an empty rest), one event more and it is full.
     */
    @Test
    void aFirstPageIsFullOnlyWhenTheBatchHasMore() {
        SlotConsumer w = slot0AfterTenantRound("q_slot_page_full");
        BatchPage exact = w.slot(0).receivePage(200).orElseThrow();
        assertFalse(exact.full());
        assertEquals(200, exact.messages().size());

        BatchPage shorter = w.slot(0).receivePage(199).orElseThrow();
        assertEquals(exact.batchId(), shorter.batchId(), "the open batch is handed out again");
        assertTrue(shorter.full());
        assertEquals(exact.messages().subList(0, 199), shorter.messages());
        try (BatchCursor rest = w.slot(0).openRest(ds, shorter.batchId(), shorter.lastMsgId())) {
            assertEquals(List.of(exact.messages().get(199)), rest.next(10), "the probe event is read with the rest");
        }
        assertFalse(w.slot(0).receivePage(1000).orElseThrow().full());
        w.slot(0).ack();
    }

    /**
     * A batch opened and read into a cursor in one step: the first page is the cursor's first
     * chunk and the rest follows from the same cursor; an open batch is handed out again; the ack
     * before the next receive happens in the same transaction, and only for the batch named.
     */
    @Test
    void aBatchOpenedThroughACursorIsReadWholeFromIt() {
        String q = "q_slot_open_cursor";
        SlotConsumer w = slot0AfterTenantRound(q);
        send(q, "tenant-a", "next");
        send(q, "tenant-b", "b-next");
        tick(pq, q);
        SlotConsumer intruder = pq.slotConsumer(q, "g", 2, "intruder");
        assertThrows(SlotFencedException.class, () -> intruder.slot(0).receiveThroughCursor(ds, 30));

        OpenedBatch opened = w.slot(0).receiveThroughCursor(ds, 30).orElseThrow();
        long batchId = opened.first().batchId();
        assertTrue(opened.first().full());
        assertEquals(30, opened.first().messages().size());
        List<Message> all = new java.util.ArrayList<>(opened.first().messages());
        try (BatchCursor rest = opened.rest()) {
            assertEquals(batchId, rest.batchId());
            List<Message> chunk;
            while (!(chunk = rest.next(40)).isEmpty()) {
                all.addAll(chunk);
            }
        }
        List<String> slot0 = IntStream.range(0, 250).filter(i -> i % 5 != 0).mapToObj(i -> "a" + i).toList();
        assertEquals(slot0, all.stream().map(Message::payload).toList());

        OpenedBatch again = w.slot(0).receiveThroughCursor(ds, 500).orElseThrow();
        assertEquals(batchId, again.first().batchId(), "the open batch is handed out again");
        assertFalse(again.first().full());
        assertNull(again.rest(), "a page that is the whole batch leaves no cursor open");
        assertEquals(all, again.first().messages());

        assertThrows(SlotFencedException.class, () -> intruder.slot(0).afterAck(batchId).receiveThroughCursor(ds, 10));
        assertEquals(batchId,
                w.slot(0).afterAck(batchId - 1).receiveThroughCursor(ds, 10).orElseThrow().first().batchId(),
                "another batch id acks nothing");
        OpenedBatch next = w.slot(0).afterAck(batchId).receiveThroughCursor(ds, 10).orElseThrow();
        assertTrue(next.first().batchId() > batchId);
        assertEquals(List.of("next"), next.first().messages().stream().map(Message::payload).toList());
        assertEquals(Optional.empty(), w.slot(0).afterAck(next.first().batchId()).receiveThroughCursor(ds, 10));
    }

    /**
     * A page received after acking a batch by its id is one engine call (ack_receive_partitioned):
     * it acks that batch and opens the next, re-issues another open batch instead of acking it, is
     * fenced for a non-holder with nothing acked, and finds nothing once the slot is read.
     */
    @Test
    void aPageAfterAnAckIsOneCallThatAcksOnlyTheNamedBatch() throws Exception {
        String q = "q_ack_receive_page";
        SlotConsumer w = slot0InTwoTicks(q);
        BatchPage first = w.slot(0).receivePage(10).orElseThrow();
        assertEquals(List.of("a0", "a1", "a2"), first.messages().stream().map(Message::payload).toList());
        SlotConsumer intruder = pq.slotConsumer(q, "g", 2, "intruder");
        assertThrows(SlotFencedException.class, () -> intruder.slot(0).afterAck(first.batchId()).receivePage(10));
        assertEquals(first.batchId(), w.slot(0).afterAck(first.batchId() - 1).receivePage(10).orElseThrow().batchId(),
                "another batch id acks nothing: the open batch comes again");
        BatchPage second = w.slot(0).afterAck(first.batchId()).receivePage(2).orElseThrow();
        assertTrue(second.batchId() > first.batchId());
        assertEquals(List.of("b0", "b1"), second.messages().stream().map(Message::payload).toList());
        assertTrue(second.full(), "a third event follows the page");
        assertEquals(Optional.empty(), w.slot(0).afterAck(second.batchId()).receivePage(10), "slot 0 is read");
        assertEquals(Optional.empty(), w.slot(0).receivePage(10));
    }

    /** The engine calls a page after an ack costs, counted in the caller's transaction. */
    @Test
    void aPageAfterAnAckIsOneEngineCall() throws Exception {
        String q = "q_ack_receive_calls";
        SlotConsumer setUp = slot0InTwoTicks(q);
        setUp.slot(0).release();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("set local track_functions = 'pl'");
            }
            SlotConsumer w = PgQue.using(c).slotConsumer(q, "g", 2, "w");
            w.slot(0).claim(TTL).orElseThrow();
            BatchPage first = w.slot(0).receivePage(10).orElseThrow();
            BatchPage second = w.slot(0).afterAck(first.batchId()).receivePage(10).orElseThrow();
            assertEquals(List.of("b0", "b1", "b2"), second.messages().stream().map(Message::payload).toList());
            assertEquals(List.of(1L, 0L, 1L), List.of(
                    calls(c, "pgque.ack_receive_partitioned(text, text, int, int, text, bigint, int, bigint)"),
                    calls(c, "pgque.ack_partitioned(text, text, int, int, text, bigint)"),
                    calls(c, "pgque.receive_partitioned(text, text, int, int, text, int, bigint)")),
                    "one ack_receive_partitioned; the first page's receive_partitioned");
            c.rollback();
        }
    }

    /** Calls of function {@code signature} in {@code c}'s open transaction (track_functions = pl). */
    private static long calls(Connection c, String signature) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(
                "select coalesce(pg_stat_get_xact_function_calls(?::regprocedure), 0)")) {
            ps.setString(1, signature);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * The batch after the open one, read ahead (first page and a cursor over the rest) before it
     * is opened, is what the slot holds once the open one is acked and it is opened, under the id
     * it was read with; only the lease holder reads ahead, and only of the open batch.
     */
    @Test
    void theNextBatchReadAheadIsOpenedAsReadOnceTheOpenOneIsAcked() {
        String q = "q_read_ahead";
        SlotConsumer w = slot0InTwoTicks(q);
        BatchPage open = w.slot(0).receivePage(10).orElseThrow();
        assertEquals(List.of("a0", "a1", "a2"), open.messages().stream().map(Message::payload).toList());

        assertThrows(SlotFencedException.class,
                () -> pq.slotConsumer(q, "g", 2, "intruder").slot(0).readAhead(ds, open.batchId(), 2));
        assertTrue(w.slot(0).readAhead(ds, open.batchId() + 1_000, 2).isEmpty(), "only of the open batch");
        ReadAhead ahead = w.slot(0).readAhead(ds, open.batchId(), 2).orElseThrow();
        assertTrue(ahead.batchId() > open.batchId());
        assertEquals(List.of("b0", "b1"), ahead.batch().first().messages().stream().map(Message::payload).toList());
        assertTrue(ahead.batch().first().full());

        assertTrue(w.slot(0).afterAck(open.batchId()).open(ahead));
        try (BatchCursor rest = ahead.batch().rest()) {
            assertEquals(List.of("b2"), rest.next(10).stream().map(Message::payload).toList());
        }
        Batch opened = w.slot(0).receive().orElseThrow();
        assertEquals(ahead.batchId(), opened.batchId(), "the slot's open batch is the one read ahead");
        assertEquals(List.of("b0", "b1", "b2"), payloads(opened));
        assertTrue(w.slot(0).readAhead(ds, opened.batchId(), 10).isEmpty(), "no tick follows it yet");
        w.slot(0).ack();
    }

    /**
     * Reading ahead in one query, for a batch expected to fit a page: a batch larger than the
     * page comes as a full first page without a cursor, and its rest is read once it is open.
     */
    @Test
    void aBatchReadAheadAsAPageIsOpenedAndItsRestReadOnceOpen() {
        SlotConsumer w = slot0InTwoTicks("q_read_ahead_page");
        BatchPage open = w.slot(0).receivePage(10).orElseThrow();
        ReadAhead ahead = w.slot(0).readAheadPage(open.batchId(), 2).orElseThrow();
        assertEquals(List.of("b0", "b1"), ahead.batch().first().messages().stream().map(Message::payload).toList());
        assertTrue(ahead.batch().first().full());
        assertNull(ahead.batch().rest(), "no cursor: the rest is read once the batch is open");
        assertTrue(w.slot(0).afterAck(open.batchId()).open(ahead));
        try (BatchCursor rest = w.slot(0).openRest(ds, ahead.batchId(), ahead.batch().first().lastMsgId())) {
            assertEquals(List.of("b2"), rest.next(10).stream().map(Message::payload).toList());
        }
        assertTrue(w.slot(0).readAheadPage(ahead.batchId(), 10).isEmpty(), "no tick follows it yet");
        w.slot(0).ack();
    }

    /**
     * A batch read ahead comes in event order even when the server returns its rows in another:
     * across a table rotation the newer table's rows come first (the query unions the current
     * table before the previous one), and the reader puts them in order.
     */
    @Test
    void aBatchReadAheadAcrossATableRotationComesInEventOrder() throws Exception {
        String q = queue("q_read_ahead_rotation");
        SlotConsumer w = pq.slotConsumer(q, "g", 1, "w");
        w.subscribe();
        send(q, "tenant-a", "a0");
        tick(pq, q);
        w.slot(0).claim(TTL).orElseThrow();
        // Past the queue's first tick, taken when it was created: a consumer there holds the switch back.
        w.slot(0).receivePage(10).orElseThrow();
        w.slot(0).ack();
        send(q, "tenant-a", "b0");
        tick(pq, q);
        BatchPage open = w.slot(0).receivePage(10).orElseThrow();
        send(q, "tenant-a", "x0");
        send(q, "tenant-b", "x1");
        try (Connection c = ds.getConnection();
             PreparedStatement due = c.prepareStatement(
                     "update pgque.queue set queue_switch_time = now() - interval '1 day' where queue_name = ?");
             PreparedStatement step1 = c.prepareStatement("select pgque.maint_rotate_tables_step1(?)");
             Statement st = c.createStatement()) {
            // The rotation period is not what this is about: let the switch be due now.
            due.setString(1, q);
            due.executeUpdate();
            step1.setString(1, q);
            try (ResultSet rs = step1.executeQuery()) {
                assertTrue(rs.next() && rs.getInt(1) == 1, "the queue switched tables");
            }
            st.execute("select pgque.maint_rotate_tables_step2()");
        }
        send(q, "tenant-a", "y0");
        send(q, "tenant-b", "y1");
        tick(pq, q);
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "select any_order_query from pgque.read_ahead_query(?, 'g', 0, 1, ?, ?, null, 10)")) {
            ps.setString(1, q);
            ps.setString(2, w.leaseId());
            ps.setLong(3, open.batchId());
            List<String> serverOrder = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                try (Statement st = c.createStatement(); ResultSet rows = st.executeQuery(rs.getString(1))) {
                    while (rows.next()) {
                        serverOrder.add(rows.getString("payload"));
                    }
                }
            }
            assertEquals(List.of("y0", "y1", "x0", "x1"), serverOrder, "the newer table's rows first");
        }
        ReadAhead ahead = w.slot(0).readAheadPage(open.batchId(), 10).orElseThrow();
        assertEquals(List.of("x0", "x1", "y0", "y1"),
                ahead.batch().first().messages().stream().map(Message::payload).toList());
        assertTrue(w.slot(0).afterAck(open.batchId()).open(ahead));
        w.slot(0).ack();
    }

    @Test
    void ackAndReceiveFinishesTheBatchAndOpensTheNextInOneStep() {
        String q = queue("q_ack_receive");
        SlotConsumer w = pq.slotConsumer(q, "g", 2, "w");
        w.subscribe();
        send(q, "tenant-a", "a1");
        tick(pq, q);
        send(q, "tenant-a", "a2");
        send(q, "tenant-b", "b1");
        tick(pq, q);
        w.slot(0).claim(TTL).orElseThrow();
        Batch first = w.slot(0).receive().orElseThrow();
        assertEquals(List.of("a1"), payloads(first));

        Batch second = w.slot(0).afterAck().receive(100).orElseThrow();
        assertEquals(List.of("a2"), payloads(second), "the next batch of slot 0 only");
        assertTrue(second.batchId() > first.batchId());
        assertEquals(Optional.empty(), w.slot(0).afterAck().receive(100), "acked the second; nothing more on slot 0");
        assertEquals(Optional.empty(), w.slot(0).afterAck().receive(100), "no open batch is not an error");
    }

    @Test
    void callsThatDoNotFitTheSetUpAreRefused() {
        String q = queue("q_misfit");
        SlotConsumer w = pq.slotConsumer(q, "g", 2, "w");
        w.subscribe();
        assertThrows(SlotNotLeasedException.class, () -> w.slot(0).receive());
        assertThrows(PartitionMismatchException.class, () -> pq.slotConsumer(q, "g", 3, "w").slot(0).receive());
        assertThrows(PartitionMismatchException.class, () -> pq.slotConsumer(q, "g", 3, "w").subscribe());
        assertThrows(WrongApiException.class, () -> pq.consumer().receive(q, "g#0/2"));
    }

    @Test
    void expiredLeaseIsTakenOverAndTheOldHolderFenced() {
        String q = queue("q_fence");
        SlotConsumer w1 = pq.slotConsumer(q, "g", 2, "w1");
        SlotConsumer w2 = pq.slotConsumer(q, "g", 2, "w2");
        w1.subscribe();
        send(q, "tenant-a", "a1");
        tick(pq, q);
        SlotLease first = w1.slot(0).claim(Duration.ofSeconds(1)).orElseThrow();
        Batch seen = w1.slot(0).receive().orElseThrow();

        await("w1's lease on slot 0 to expire",
                () -> Optional.ofNullable(w1.status().get(0).leaseOwner() == null ? "expired" : null));
        SlotLease taken = w2.slot(0).claim(TTL).orElseThrow();
        assertEquals(first.epoch() + 1, taken.epoch());
        Batch reissued = w2.slot(0).receive().orElseThrow();
        assertEquals(payloads(seen), payloads(reissued), "the heir gets the still-open batch");
        assertThrows(SlotFencedException.class, () -> w1.slot(0).ack());
        assertThrows(SlotFencedException.class, () -> w1.slot(0).afterAck().receive(100), "acks nothing either");
        PgQueException refused = assertThrows(PgQueException.class, () -> w2.slot(0).release(),
                "no release while a batch is open");
        assertEquals("55000", refused.sqlState());
        w2.slot(0).ack();
        assertTrue(w2.slot(0).release());
    }

    @Test
    void nackedMessageComesBackOnTheSameSlot() {
        String q = queue("q_slot_nack");
        SlotConsumer w = pq.slotConsumer(q, "g", 2, "w");
        w.subscribe();
        send(q, "tenant-b", "b1");
        tick(pq, q);
        w.slot(1).claim(TTL).orElseThrow();
        Batch batch = w.slot(1).receive().orElseThrow();
        w.slot(1).nack(batch.messages().get(0), Duration.ZERO, "later");
        w.slot(1).ack();
        pq.operations().maintRetryEvents();
        Batch retried = await("the retry on slot 1", () -> {
            tick(pq, q);
            return w.slot(1).receive();
        });
        assertEquals(batch.messages().get(0).msgId(), retried.messages().get(0).msgId());
        assertEquals(1, retried.messages().get(0).retryCount());
        w.slot(1).ack();
    }

    @Test
    void claimAnySkipsHeldAndTakenSlots() {
        String q = queue("q_claim_any");
        SlotConsumer w1 = pq.slotConsumer(q, "g", 2, "w1");
        SlotConsumer w2 = pq.slotConsumer(q, "g", 2, "w2");
        w1.subscribe();
        assertEquals(0, w1.claimAny(TTL, Set.of()).orElseThrow().slot());
        assertEquals(1, w1.claimAny(TTL, Set.of(0)).orElseThrow().slot());
        assertTrue(w1.claimAny(TTL, Set.of(0, 1)).isEmpty());
        assertTrue(w2.claimAny(TTL, Set.of()).isEmpty());
    }

    @Test
    void aCatchingUpConsumerReadsTheTicksItIsBehindAsOneBatch() {
        String q = queue("q_catch_up");
        SlotConsumer plain = pq.slotConsumer(q, "g", 2, "w1");
        plain.subscribe();
        SlotConsumer catchingUp = plain.catchingUp(1_000);
        for (String payload : List.of("a1", "a2", "a3")) {
            send(q, "tenant-a", payload);
            tick(pq, q);
        }
        catchingUp.slot(0).claim(TTL).orElseThrow();
        BatchPage page = catchingUp.slot(0).receivePage(10).orElseThrow();
        assertEquals(List.of("a1", "a2", "a3"), page.messages().stream().map(Message::payload).toList(),
                "three ticks behind, one batch");
        catchingUp.slot(0).ack();
        assertTrue(catchingUp.slot(0).receive().isEmpty());
        for (String payload : List.of("a4", "a5")) {
            send(q, "tenant-a", payload);
            tick(pq, q);
        }
        OpenedBatch opened = catchingUp.slot(0).receiveThroughCursor(ds, 1).orElseThrow();
        assertEquals(List.of("a4"), opened.first().messages().stream().map(Message::payload).toList());
        try (BatchCursor rest = opened.rest()) {
            assertEquals(List.of("a5"), rest.next(10).stream().map(Message::payload).toList(),
                    "through a cursor too, two ticks behind, one batch");
        }
        assertThrows(IllegalArgumentException.class, () -> plain.catchingUp(0));
    }

    @Test
    void aCatchingUpConsumerOnAnEngineWithoutTheWindowReadsOneTickPerBatch() {
        // An engine installed by an older release: no receive_partitioned(..., i_window_events).
        DataSource older = ClientTesting.newDatabase("client_slots_older").installEngine().superuser();
        ClientTesting.exec(older, "drop function pgque.receive_partitioned(text, text, int, int, text, int, bigint)");
        ClientTesting.exec(older, "drop function pgque.read_ahead_window(text, text, int, int, text, bigint, bigint)");
        ClientTesting.exec(older, "update pgque.engine_info set engine_version = '0.1.0'");
        ClientTesting.exec(older, """
                create or replace function pgque.receive_partitioned(i_queue text, i_consumer text, i_slot int,
                    i_n int, i_worker text, i_max int default 100)
                returns setof pgque.message language plpgsql security definer
                set search_path = pgque, pg_catalog, pg_temp as $$
                declare
                    v_batch bigint;
                begin
                    perform pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
                    select b.batch_id into v_batch
                      from pgque.batch_open(i_queue, pgque.slot_consumer_name(i_consumer, i_slot, i_n), null, null, null, null) b;
                    if v_batch is not null then
                        return query select * from pgque.batch_first_page(v_batch, i_max, i_slot, i_n);
                    end if;
                end
                $$""");
        PgQue olderPq = PgQue.using(older);
        olderPq.queues().create("q_older");
        SlotConsumer catchingUp = olderPq.slotConsumer("q_older", "g", 1, "w1").catchingUp(1_000);
        catchingUp.subscribe();
        for (String payload : List.of("a1", "a2")) {
            olderPq.producer().send("q_older", Event.of("t", payload).withPartitionKey("k"));
            olderPq.operations().forceNextTick("q_older");
            olderPq.operations().ticker("q_older");
        }
        catchingUp.slot(0).claim(TTL).orElseThrow();
        Batch first = catchingUp.slot(0).receive().orElseThrow();
        assertEquals(List.of("a1"), payloads(first), "one tick, as before");
        assertTrue(catchingUp.slot(0).readAhead(older, first.batchId(), 10).isEmpty(), "nor can it read ahead");
        assertEquals(List.of("a2"), payloads(catchingUp.slot(0).afterAck().receive(10).orElseThrow()));
    }

    private static List<String> payloads(Batch batch) {
        return batch.messages().stream().map(Message::payload).collect(Collectors.toList());
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.partition.Pq.Msg;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Read-ahead of a slot's next batch ({@code read_ahead_window}, {@code read_ahead_partitioned},
 * {@code open_read_ahead_partitioned}): what is read before the batch is opened is exactly what
 * the batch holds once opened, also for a transaction that commits late; the batch is opened only
 * if the slot stands where the read-ahead started; a resize's seal bounds it; the reads check the
 * lease without locking the slot.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ReadAheadIT {

    private static final String RECEIVE = "select * from pgque.receive_partitioned(?::text, ?::text, ?::int, "
            + "?::int, ?::text, ?::int, ?::bigint)";
    private static final String WINDOW = "select batch_id, from_tick, to_tick from pgque.read_ahead_window(?::text, "
            + "?::text, ?::int, ?::int, ?::text, ?::bigint, ?::bigint)";
    private static final String READ = "select * from pgque.read_ahead_partitioned(?::text, ?::text, ?::int, ?::int, "
            + "?::text, ?::bigint, ?::bigint, ?::bigint)";
    private static final String PAGE = "select * from pgque.read_ahead_page(?::text, ?::text, ?::int, ?::int, "
            + "?::text, ?::bigint, ?::bigint, ?::int)";
    private static final String QUERY = "select * from pgque.read_ahead_query(?::text, ?::text, ?::int, ?::int, "
            + "?::text, ?::bigint, ?::bigint, ?::int)";
    private static final String OPEN = "select pgque.open_read_ahead_partitioned(?::text, ?::text, ?::int, ?::int, "
            + "?::text, ?::bigint, ?::bigint, ?::bigint)";

    private static DataSource ds;
    /** A login with pgque_reader only: what the source connector runs as. */
    private static DataSource reader;
    private static final AtomicInteger QUEUES = new AtomicInteger();

    /** A batch named by read_ahead_window. */
    private record Window(Long batchId, Long fromTick, Long toTick) {
    }

    @BeforeAll
    static void install() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("read_ahead").installEngine();
        ds = db.superuser();
        Db.exec(ds, "create role " + db.name() + "_reader login");
        Db.exec(ds, "grant pgque_reader to " + db.name() + "_reader");
        reader = db.as(db.name() + "_reader");
    }

    /** A queue with consumers {@code consumers} over n slots, every slot claimed by worker w of the reader login. */
    private static String queue(int n, String... consumers) {
        String q = "ra_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        for (String consumer : consumers) {
            Pq.subscribePartitioned(ds, q, consumer, n);
            for (int slot = 0; slot < n; slot++) {
                Pq.claim(reader, q, consumer, slot, "w");
            }
        }
        return q;
    }

    /** Sends {@code count} events (keys k0..) and ticks. */
    private static void tickOf(String q, String prefix, int count) {
        Db.with(ds, c -> {
            for (int i = 0; i < count; i++) {
                Pq.send(c, q, "t", prefix + i, "k" + i);
            }
            return null;
        });
        Pq.tick(ds, q);
    }

    private static List<Msg> receive(String q, String consumer, int slot, int n, Long window) {
        return Db.with(reader, c -> Pq.query(c, RECEIVE, q, consumer, slot, n, "w", 1000, window));
    }

    private static Window window(String q, String consumer, int slot, int n, String worker, long batchId, Long events) {
        return windowOf(Db.rows(reader, WINDOW, q, consumer, slot, n, worker, batchId, events).get(0));
    }

    private static Window windowOf(Map<String, Object> row) {
        return new Window((Long) row.get("batch_id"), (Long) row.get("from_tick"), (Long) row.get("to_tick"));
    }

    private static List<Msg> read(String q, String consumer, int slot, int n, String worker, Window w) {
        return Db.with(reader, c -> Pq.query(c, READ, q, consumer, slot, n, worker, w.batchId(), w.fromTick(), w.toTick()));
    }

    private static boolean open(String q, String consumer, int slot, int n, Window w) {
        return Db.one(reader, Boolean.class, OPEN, q, consumer, slot, n, "w", w.batchId(), w.fromTick(), w.toTick());
    }

    /** The batch after the open one, as consumer "twin" reads the same slot the usual way: one batch after the other. */
    private static List<Msg> twinsNextBatch(String q, int slot, int n) {
        receive(q, "twin", slot, n, null);
        Pq.ack(reader, q, "twin", slot, n, "w");
        return receive(q, "twin", slot, n, null);
    }

    private static List<String> payloads(List<Msg> batch) {
        return batch.stream().map(Msg::payload).toList();
    }

    @Test
    void whatIsReadAheadIsExactlyWhatTheBatchHoldsOnceOpened() {
        int n = 2;
        String q = queue(n, "c", "twin");
        tickOf(q, "a", 6);
        tickOf(q, "b", 6);
        tickOf(q, "c", 6);
        for (int slot = 0; slot < n; slot++) {
            List<Msg> open = receive(q, "c", slot, n, null);
            Window next = window(q, "c", slot, n, "w", open.get(0).batchId(), null);
            assertNotNull(next.batchId(), "a tick follows the open batch");
            assertTrue(next.batchId() > open.get(0).batchId());
            List<Msg> ahead = read(q, "c", slot, n, "w", next);
            assertTrue(ahead.stream().allMatch(m -> m.batchId() == next.batchId()), "read as the batch to come");

            List<Msg> usual = twinsNextBatch(q, slot, n);
            assertEquals(payloads(usual), payloads(ahead));
            assertEquals(usual.stream().map(Msg::msgId).toList(), ahead.stream().map(Msg::msgId).toList());

            assertFalse(open(q, "c", slot, n, next), "not while the batch before it is open");
            assertEquals(1, Pq.ack(reader, q, "c", slot, n, "w"));
            assertTrue(open(q, "c", slot, n, next));
            assertTrue(open(q, "c", slot, n, next), "a repeated open (its answer lost) finds it open");
            assertEquals(ahead, receive(q, "c", slot, n, null), "the open batch is the one read ahead");
            assertEquals(1, Pq.ack(reader, q, "c", slot, n, "w"));
        }
    }

    /** The one-call form: the first events of the batch, each row with the batch's ticks. */
    @Test
    void aReadAheadPageIsTheFirstEventsOfTheNextBatchWithItsTicks() {
        String q = queue(1, "c");
        tickOf(q, "a", 3);
        tickOf(q, "b", 3);
        tickOf(q, "c", 3);
        long open = receive(q, "c", 0, 1, null).get(0).batchId();
        Window next = window(q, "c", 0, 1, "w", open, 4L);
        List<Map<String, Object>> page = Db.rows(reader, PAGE, q, "c", 0, 1, "w", open, 4L, 2);
        assertEquals(List.of("b0", "b1"), page.stream().map(r -> (String) r.get("payload")).toList(),
                "the first two of the next batch; a window of 4 holds one tick of 3");
        Window read = new Window((Long) page.get(0).get("batch_id"), (Long) page.get(0).get("from_tick"),
                (Long) page.get(0).get("to_tick"));
        assertEquals(next.fromTick(), read.fromTick());
        assertEquals(next.toTick(), read.toTick());
        assertTrue(page.stream().allMatch(r -> read.batchId().equals(r.get("batch_id"))));
        Pq.ack(reader, q, "c", 0, 1, "w");
        assertTrue(open(q, "c", 0, 1, read));
        List<Msg> opened = receive(q, "c", 0, 1, null);
        assertEquals(List.of("b0", "b1", "b2"), payloads(opened));
        assertEquals(read.batchId(), opened.get(0).batchId());
        assertEquals(List.of("c0", "c1", "c2"), Db.rows(reader, PAGE, q, "c", 0, 1, "w", opened.get(0).batchId(), null, 10)
                .stream().map(r -> (String) r.get("payload")).toList(), "tick c, read ahead of the open batch");
        Pq.ack(reader, q, "c", 0, 1, "w");
        Db.assertSqlState("22023", () -> Db.rows(reader, PAGE, q, "c", 0, 1, "w", open, null, 0));
    }

    /**
     * The query form: the engine names the batch and hands out the query over its events, which
     * a reader with pgque_reader alone runs itself; it finds what the batch holds once opened.
     */
    @Test
    void aReadAheadQueryIsRunByTheReaderAndFindsWhatTheBatchHolds() {
        int n = 2;
        String q = queue(n, "c", "twin");
        tickOf(q, "a", 6);
        tickOf(q, "b", 8);
        tickOf(q, "c", 6);
        for (int s = 0; s < n; s++) {
            int slot = s;
            long open = receive(q, "c", slot, n, null).get(0).batchId();
            Map<String, Object> row = Db.rows(reader, QUERY, q, "c", slot, n, "w", open, null, null).get(0);
            Window next = windowOf(row);
            List<Msg> ahead = Db.with(reader, c -> Pq.query(c, (String) row.get("query")));
            assertFalse(ahead.isEmpty(), "tick b holds events of every slot");
            assertTrue(ahead.stream().allMatch(m -> m.batchId() == next.batchId()), "read as the batch to come");
            List<Msg> firstTwo = Db.with(reader, c -> Pq.query(c,
                    (String) Db.rows(reader, QUERY, q, "c", slot, n, "w", open, null, 2).get(0).get("query")));
            assertEquals(ahead.subList(0, 2).stream().map(Msg::msgId).toList(),
                    firstTwo.stream().map(Msg::msgId).toList(), "at most i_max, in event order");
            List<Msg> anyOrder = Db.with(reader, c -> Pq.query(c, (String) row.get("any_order_query")));
            assertEquals(ahead.stream().map(Msg::msgId).sorted().toList(),
                    anyOrder.stream().map(Msg::msgId).sorted().toList(), "the same events, in no set order");
            assertEquals(2, Db.with(reader, c -> Pq.query(c, (String) Db.rows(reader, QUERY, q, "c", slot, n, "w",
                    open, null, 2).get(0).get("any_order_query"))).size(), "at most i_max of them");

            List<Msg> usual = twinsNextBatch(q, slot, n);
            assertEquals(usual.stream().map(Msg::msgId).toList(), ahead.stream().map(Msg::msgId).toList());
            assertEquals(payloads(usual), payloads(ahead));

            assertEquals(1, Pq.ack(reader, q, "c", slot, n, "w"));
            assertTrue(open(q, "c", slot, n, next));
            assertEquals(ahead, receive(q, "c", slot, n, null), "the open batch is the one read ahead");
            assertEquals(1, Pq.ack(reader, q, "c", slot, n, "w"));
            assertEquals(1, Pq.ack(reader, q, "twin", slot, n, "w"));
        }
        long last = receive(q, "c", 0, n, null).get(0).batchId();
        assertTrue(Db.rows(reader, QUERY, q, "c", 0, n, "w", last, null, null).isEmpty(), "no tick after it yet");
        Db.assertSqlState("PQ004", () -> Db.rows(reader, QUERY, q, "c", 0, n, "intruder", last, null, null));
        Db.assertSqlState("22023", () -> Db.rows(reader, QUERY, q, "c", 0, n, "w", last, null, 0));
    }

    @Test
    void aReadAheadSpansTheTicksTheCatchUpWindowHolds() {
        String q = queue(1, "c");
        tickOf(q, "a", 2);
        tickOf(q, "b", 2);
        tickOf(q, "c", 2);
        tickOf(q, "d", 5);
        List<Msg> open = receive(q, "c", 0, 1, null);
        Window next = window(q, "c", 0, 1, "w", open.get(0).batchId(), 4L);
        assertEquals(List.of("b0", "b1", "c0", "c1"), payloads(read(q, "c", 0, 1, "w", next)),
                "two ticks of two: as receive_partitioned with a window of 4 would take them");
        Pq.ack(reader, q, "c", 0, 1, "w");
        assertTrue(open(q, "c", 0, 1, next));
        Pq.ack(reader, q, "c", 0, 1, "w");
        assertEquals(List.of("d0", "d1", "d2", "d3", "d4"), payloads(receive(q, "c", 0, 1, 4L)));
    }

    @Test
    void thereIsNothingToReadAheadOfWithoutANextTickOrForAnotherBatch() {
        String q = queue(1, "c");
        tickOf(q, "a", 2);
        long batch = receive(q, "c", 0, 1, null).get(0).batchId();
        assertNull(window(q, "c", 0, 1, "w", batch, null).batchId(), "no tick after the open batch yet");
        tickOf(q, "b", 2);
        assertNull(window(q, "c", 0, 1, "w", batch + 1_000, null).batchId(), "not the open batch");
        Pq.ack(reader, q, "c", 0, 1, "w");
        assertNull(window(q, "c", 0, 1, "w", batch, null).batchId(), "no batch open any more");
    }

    @Test
    void aSlotThatMovedOtherwiseDoesNotOpenWhatWasReadAhead() {
        String q = queue(1, "c");
        tickOf(q, "a", 2);
        tickOf(q, "b", 2);
        tickOf(q, "c", 2);
        long batch = receive(q, "c", 0, 1, null).get(0).batchId();
        Window next = window(q, "c", 0, 1, "w", batch, null);
        Pq.ack(reader, q, "c", 0, 1, "w");
        List<Msg> usual = receive(q, "c", 0, 1, 1_000L);
        assertEquals(List.of("b0", "b1", "c0", "c1"), payloads(usual), "received the usual way, with a window");
        assertFalse(open(q, "c", 0, 1, next), "another batch is open");
        Pq.ack(reader, q, "c", 0, 1, "w");
        assertFalse(open(q, "c", 0, 1, next), "the slot stands past where the read-ahead started");
        assertTrue(receive(q, "c", 0, 1, null).isEmpty(), "nothing was opened");
    }

    @Test
    void aReadAheadStopsAtTheSealOfAResize() {
        String q = queue(2, "c");
        tickOf(q, "a", 4);
        List<Msg> open = receive(q, "c", 0, 2, null);
        Db.one(ds, Long.class, "select pgque.begin_resize(?, ?, ?)", q, "c", 4);
        tickOf(q, "b", 4);
        long seal = Db.one(ds, Long.class, "select seal_tick from pgque.partition_consumer where queue_id = "
                + "(select queue_id from pgque.queue where queue_name = ?) and co_name = 'c'", q);
        Window next = window(q, "c", 0, 2, "w", open.get(0).batchId(), null);
        assertTrue(next.batchId() == null || next.toTick() <= seal, "never past the seal, got " + next);
        Pq.ack(reader, q, "c", 0, 2, "w");
        long after = Db.one(ds, Long.class, "select max(tick_id) from pgque.tick where tick_queue = "
                + "(select queue_id from pgque.queue where queue_name = ?)", q);
        long from = Db.one(ds, Long.class, "select last_tick from pgque.partition_slot_status where queue_name = ? "
                + "and consumer = 'c' and slot = 0 and n = 2", q);
        assertTrue(after > seal);
        assertFalse(open(q, "c", 0, 2, new Window(Db.one(ds, Long.class, "select nextval('pgque.batch_id_seq')"),
                from, after)), "a batch past the seal is not opened");
    }

    @Test
    void aTransactionThatCommitsLateIsReadAheadInTheWindowItBecameVisibleIn() throws SQLException {
        String q = queue(1, "c");
        tickOf(q, "a", 1);
        long batch = receive(q, "c", 0, 1, null).get(0).batchId();
        Window second;
        try (Connection late = ds.getConnection()) {
            late.setAutoCommit(false);
            Pq.send(late, q, "t", "late", "late-key");
            tickOf(q, "b", 1);
            second = window(q, "c", 0, 1, "w", batch, null);
            assertEquals(List.of("b0"), payloads(read(q, "c", 0, 1, "w", second)), "the open transaction is in no window yet");
            late.commit();
        }
        tickOf(q, "c", 1);
        Pq.ack(reader, q, "c", 0, 1, "w");
        assertTrue(open(q, "c", 0, 1, second));
        assertEquals(List.of("b0"), payloads(receive(q, "c", 0, 1, null)), "the batch holds what was read ahead");
        Window third = window(q, "c", 0, 1, "w", second.batchId(), null);
        List<Msg> ahead = read(q, "c", 0, 1, "w", third);
        assertEquals(List.of("late", "c0"), payloads(ahead), "the late event, in the window it became visible in");
        Pq.ack(reader, q, "c", 0, 1, "w");
        assertTrue(open(q, "c", 0, 1, third));
        assertEquals(ahead, receive(q, "c", 0, 1, null));
    }

    @Test
    void theReadsAreFencedAndCheckTheirArguments() {
        String q = queue(1, "c");
        tickOf(q, "a", 1);
        tickOf(q, "b", 1);
        long batch = receive(q, "c", 0, 1, null).get(0).batchId();
        Window next = window(q, "c", 0, 1, "w", batch, null);
        Db.assertSqlState("PQ004", () -> window(q, "c", 0, 1, "intruder", batch, null));
        Db.assertSqlState("PQ004", () -> read(q, "c", 0, 1, "intruder", next));
        Db.assertSqlState("PQ004", () -> Db.one(ds, Boolean.class, OPEN, q, "c", 0, 1, "intruder",
                next.batchId(), next.fromTick(), next.toTick()));
        Db.assertSqlState("22023", () -> window(q, "c", 0, 1, "w", batch, 0L));
        Db.assertSqlState("22023", () -> read(q, "c", 0, 1, "w",
                new Window(next.batchId(), next.toTick(), next.fromTick())));
    }

    /**
     * The reads lock nothing: while a read-ahead's transaction is still open (as a cursor's is
     * while it is declared), the worker renews its lease and acks on another session without
     * waiting.
     */
    @Test
    void aReadAheadInProgressDoesNotHoldUpTheWorkersAcksAndRenewals() throws SQLException {
        String q = queue(1, "c");
        tickOf(q, "a", 2);
        tickOf(q, "b", 2);
        long batch = receive(q, "c", 0, 1, null).get(0).batchId();
        try (Connection reading = reader.getConnection()) {
            reading.setAutoCommit(false);
            Window next = windowOf(Db.rows(reading, WINDOW, q, "c", 0, 1, "w", batch, null).get(0));
            assertEquals(List.of("b0", "b1"), payloads(Pq.query(reading, READ, q, "c", 0, 1, "w",
                    next.batchId(), next.fromTick(), next.toTick())));
            Db.with(reader, c -> {
                Db.exec(c, "set lock_timeout = '2s'");
                assertNotNull(Pq.claim(c, q, "c", 0, "w", "30 seconds"), "renewed");
                assertEquals(1, Pq.ack(c, q, "c", 0, 1, "w"), "acked");
                assertEquals(Boolean.TRUE, Db.one(c, Boolean.class, OPEN, q, "c", 0, 1, "w",
                        next.batchId(), next.fromTick(), next.toTick()), "opened");
                return null;
            });
            reading.commit();
        }
    }
}

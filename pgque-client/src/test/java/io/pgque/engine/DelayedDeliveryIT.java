/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Await;
import io.pgque.testsupport.Jdbc;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * sql-reference "Delayed delivery": {@code send_at} and {@code send_events_at} hold an event until
 * it is due; the ticker (and {@code maint()}) move due events into the queue in due-time order,
 * as new events that join their key's order then; bad input is refused as PgQue refuses it; two
 * sessions racing (a producer still open when its event falls due, two movers, a drop) lose and
 * repeat nothing; and a tick's cost does not grow with what is held.
 */
class DelayedDeliveryIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("delayed").installEngine().superuser());
    }

    /** Queue {@code queue}, and consumer {@code c} subscribed to it. */
    private static void queueWithConsumer(String queue) {
        sql.createQueue(queue);
        sql.subscribe(queue, "c");
    }

    private static long held(String queue) {
        return sql.oneLong("select count(*) from pgque.delayed_events where de_queue_name = ?", queue);
    }

    /** A time {@code millis} from now by the database's clock. */
    private static OffsetDateTime inMillis(long millis) {
        return sql.one(OffsetDateTime.class, "select clock_timestamp() + ? * interval '1 millisecond'", millis);
    }

    private static void awaitClockPast(OffsetDateTime due) {
        Await.until("the database clock to pass " + due, WAIT,
                () -> Boolean.TRUE.equals(sql.one(Boolean.class, "select clock_timestamp() > ?", due)));
    }

    private static long sendAt(String queue, String payload, OffsetDateTime due, String key) {
        return sql.oneLong("select pgque.send_at(?, 't', ?::text, ?, ?)", queue, payload, due, key);
    }

    @Test
    void anEventDueLaterIsHeldAndTheTickerMovesItOnceDue() {
        String q = "later";
        queueWithConsumer(q);
        OffsetDateTime due = inMillis(500);
        long scheduled = sql.oneLong("select pgque.send_at(?, 'remind', '{\"a\": 1}'::jsonb, ?)", q, due);
        assertEquals(1, held(q), "held, not in the queue");
        assertEquals(scheduled, sql.oneLong("select de_id from pgque.delayed_events where de_queue_name = ?", q),
                "send_at returns the scheduled id");
        sql.tick(q);
        assertEquals(List.of(), sql.drain(q, "c"), "nothing before it is due");

        awaitClockPast(due);
        // The tick that moves it may or may not cover it (see eventsMovedByATickThatAlsoTicks...); the next does.
        sql.tick(q);
        sql.tick(q);
        List<Msg> got = sql.drain(q, "c");
        assertEquals(1, got.size(), got::toString);
        assertEquals("remind", got.get(0).type());
        assertEquals("{\"a\": 1}", got.get(0).payload());
        assertFalse(got.get(0).createdAt().isBefore(due), "created_at is when it entered the queue, not before due");
        assertEquals(0, held(q));
    }

    @Test
    void anEventDueNowOrFarInThePastIsSentAtOnceAndItsEventIdReturned() {
        String q = "now";
        queueWithConsumer(q);
        long past = sql.oneLong("select pgque.send_at(?, 't', 'past'::text, now() - interval '10 years')", q);
        long minusInfinity = sql.oneLong("select pgque.send_at(?, 't', '{}'::jsonb, '-infinity')", q);
        long keyed = sql.oneLong("select pgque.send_at(?, 't', 'keyed'::text, now(), 'k1')", q);
        assertEquals(0, held(q));
        sql.tick(q);
        List<Msg> got = sql.drain(q, "c");
        assertEquals(List.of(past, minusInfinity, keyed), got.stream().map(Msg::msgId).toList());
        assertEquals("k1", got.get(2).extra1(), "the partition key form stores the key as send does");
    }

    @Test
    void dueEventsEnterInDueTimeOrderAndEqualTimesInSendOrder() {
        String q = "order";
        queueWithConsumer(q);
        OffsetDateTime base = inMillis(400);
        // Sent in the reverse of their due order; the last two share a due time.
        sendAt(q, "third", base.plusNanos(200_000_000), null);
        sendAt(q, "second", base.plusNanos(100_000_000), null);
        sendAt(q, "first-a", base, null);
        sendAt(q, "first-b", base, null);
        awaitClockPast(base.plusNanos(200_000_000));
        sql.tick(q);
        sql.tick(q);
        assertEquals(List.of("first-a", "first-b", "second", "third"),
                sql.drain(q, "c").stream().map(Msg::payload).toList());
    }

    @Test
    void aDelayedEventJoinsItsKeysOrderWhenItBecomesDue() {
        String q = "keyorder";
        queueWithConsumer(q);
        OffsetDateTime due = inMillis(400);
        sendAt(q, "delayed", due, "k");
        sql.exec("select pgque.send(?, 't', 'sent-after-it'::text, 'k')", q);
        sql.tick(q);
        awaitClockPast(due);
        sql.exec("select pgque.send(?, 't', 'sent-once-due-before-a-tick'::text, 'k')", q);
        sql.tick(q);
        sql.exec("select pgque.send(?, 't', 'sent-after-that-tick'::text, 'k')", q);
        sql.tick(q);
        assertEquals(List.of("sent-after-it", "sent-once-due-before-a-tick", "delayed", "sent-after-that-tick"),
                sql.drain(q, "c").stream().map(Msg::payload).toList(),
                "the delayed event takes its key's place at the tick that moved it");
    }

    @Test
    void theBatchFormSendsWhatIsDueAndHoldsTheRestReportingEachPosition() {
        String q = "batchform";
        queueWithConsumer(q);
        OffsetDateTime due = inMillis(400);
        List<Map<String, Object>> rows = sql.rows("""
                select ord, event_id, scheduled_id from pgque.send_events_at(?,
                    array[null, ?, now() - interval '1 hour', ?]::timestamptz[],
                    array['a', 'b', 'c', 'd'], array['p1', 'p2', 'p3', 'p4'], array['k', 'k', 'k', null],
                    null, array['x3', null, null, 'y3'], null)""", q, due, due);
        assertEquals(4, rows.size());
        for (int i = 0; i < 4; i++) {
            assertEquals(i + 1, ((Number) rows.get(i).get("ord")).intValue());
            boolean heldHere = i == 1 || i == 3;
            assertEquals(heldHere, rows.get(i).get("event_id") == null, "row " + rows.get(i));
            assertEquals(heldHere, rows.get(i).get("scheduled_id") != null, "row " + rows.get(i));
        }
        assertEquals(2, held(q));
        sql.tick(q);
        assertEquals(List.of("p1", "p3"), sql.drain(q, "c").stream().map(Msg::payload).toList());
        awaitClockPast(due);
        sql.tick(q);
        sql.tick(q);
        List<Msg> later = sql.drain(q, "c");
        assertEquals(List.of("p2", "p4"), later.stream().map(Msg::payload).toList());
        assertEquals("k", later.get(0).extra1());
        assertNull(later.get(1).extra1());
        assertEquals("y3", later.get(1).extra3(), "extras travel with the held event");
    }

    @Test
    void badInputIsRefusedAsPgQueRefusesIt() {
        String q = "bad";
        sql.createQueue(q);
        // NULL: PgQue's held row refuses it (not-null violation).
        var nullTime = Sql.expectSqlState("23502", () -> sql.exec("select pgque.send_at(?, 't', '{}'::jsonb, null)", q));
        assertTrue(nullTime.getMessage().contains("de_deliver_at"), nullTime.getMessage());
        // An unknown queue, due now or later: insert_event's error.
        for (String when : List.of("now() + interval '1 hour'", "now() - interval '1 hour'")) {
            var unknown = Sql.expectSqlState("PQ001",
                    () -> sql.exec("select pgque.send_at('no_such_queue', 't', '{}'::jsonb, " + when + ")"));
            assertTrue(unknown.getMessage().contains("queue not found: no_such_queue"), unknown.getMessage());
        }
        Sql.expectSqlState("PQ001", () -> sql.exec("select * from pgque.send_events_at('no_such_queue', "
                + "array[now() + interval '1 hour'], array['t'], array['p'])"));
        // A time that never comes.
        var never = Sql.expectSqlState("22023", () -> sql.exec("select pgque.send_at(?, 't', '{}'::jsonb, 'infinity')", q));
        assertTrue(never.getMessage().contains("finite"), never.getMessage());
        // Arrays that do not line up.
        Sql.expectSqlState("22023", () -> sql.exec("select * from pgque.send_events_at(?, "
                + "array[now(), now()]::timestamptz[], array['t'], array['p'])", q));
        // A queue refusing inserts refuses held events too.
        sql.config(q, "disable_insert", "true");
        var disallowed = Sql.expectSqlState("55000",
                () -> sql.exec("select pgque.send_at(?, 't', '{}'::jsonb, now() + interval '1 hour')", q));
        assertTrue(disallowed.getMessage().contains("Insert into queue disallowed"), disallowed.getMessage());
        sql.config(q, "disable_insert", null);
        assertEquals(0, held(q), "nothing held by any refused call");
    }

    @Test
    void aQueueThatRefusesInsertsKeepsItsEventsHeldUntilItTakesThemAgain() {
        String q = "disabled";
        queueWithConsumer(q);
        OffsetDateTime due = inMillis(300);
        sendAt(q, "waits", due, null);
        sql.config(q, "disable_insert", "true");
        awaitClockPast(due);
        assertEquals(0, sql.oneLong("select pgque.maint_deliver_delayed()"));
        assertNotNull(sql.oneLongOrNull("select pgque.force_next_tick(?)", q));
        assertNotNull(sql.oneLongOrNull("select pgque.ticker(?::text)", q), "the ticker still ticks the queue");
        assertEquals(1, held(q));
        sql.config(q, "disable_insert", null);
        sql.tick(q);
        sql.tick(q);
        assertEquals(List.of("waits"), sql.drain(q, "c").stream().map(Msg::payload).toList());
    }

    @Test
    void maintDeliversDueEventsOfEveryQueuePausedOnesToo() {
        String q = "paused";
        queueWithConsumer(q);
        OffsetDateTime due = inMillis(300);
        sendAt(q, "p", due, null);
        sql.config(q, "ticker_paused", "true");
        awaitClockPast(due);
        sql.exec("select pgque.maint()");
        assertEquals(0, held(q), "maint() moved it although the queue's ticker is paused");
        sql.config(q, "ticker_paused", "false");
        sql.tick(q);
        assertEquals(List.of("p"), sql.drain(q, "c").stream().map(Msg::payload).toList());
    }

    @Test
    void aTickerMovesAtMostItsLimitAndMaintDrainsEverythingDue() {
        String q = "burst";
        queueWithConsumer(q);
        int limit = (int) sql.oneLong("select pgque.delayed_move_limit()");
        // Rows written as PgQue's tests write them, already due.
        sql.exec("insert into pgque.delayed_events (de_queue_name, de_deliver_at, de_type, de_data) "
                + "select ?, now() - interval '1 second', 't', g::text from generate_series(1, ?) g", q, limit + 3);
        sql.exec("select pgque.ticker(?::text)", q);
        assertEquals(3, held(q), "one tick takes at most " + limit);
        assertEquals(3, sql.oneLong("select pgque.maint_deliver_delayed()"));
        assertEquals(0, held(q));
        sql.tick(q);
        List<Msg> got = sql.drain(q, "c");
        assertEquals(limit + 3, got.size());
        for (int i = 0; i < got.size(); i++) {
            assertEquals(Integer.toString(i + 1), got.get(i).payload(), "send order among equal due times");
        }
    }

    @Test
    void anIdleQueueGetsNoTickForEventsThatAreNotDue() {
        String q = "idle";
        sql.createQueue(q);
        sql.config(q, "ticker_max_lag", "1 hour");
        sql.config(q, "ticker_idle_period", "1 hour");
        sql.subscribe(q, "c");
        sql.tick(q);
        long last = lastTick(q);
        sql.exec("select count(pgque.send_at(?, 't', g::text, now() + interval '1 hour')) from generate_series(1, 50) g", q);
        for (int i = 0; i < 5; i++) {
            assertNull(sql.oneLongOrNull("select pgque.ticker(?::text)", q));
            sql.exec("select pgque.ticker()");
            sql.exec("select pgque.ticker_round('1 microsecond')");
        }
        assertEquals(last, lastTick(q), "no tick while nothing is due");
        assertEquals(50, held(q));
    }

    /**
     * The ticker's rounds alone (no maint(), no forced tick) deliver a delayed event within a round
     * or two of its due time, and the event's tick is not one the queue would have had anyway.
     */
    @Test
    void tickerRoundsDeliverDueEventsPromptly() throws Exception {
        String q = "prompt";
        sql.createQueue(q);
        sql.config(q, "ticker_max_lag", "1 hour");
        sql.config(q, "ticker_idle_period", "1 hour");
        sql.subscribe(q, "c");
        sql.tick(q);
        OffsetDateTime due = inMillis(500);
        sendAt(q, "on time", due, "k");
        try (Connection ticker = sql.connect()) {
            ticker.setAutoCommit(true);
            List<Msg> got = new java.util.ArrayList<>();
            Await.until("the delayed event through ticker_round alone", WAIT, Duration.ofMillis(20), () -> {
                try {
                    Jdbc.exec(ticker, "select pgque.ticker_round('100 milliseconds')");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
                got.addAll(sql.drain(q, "c"));
                return !got.isEmpty();
            });
            OffsetDateTime arrived = sql.one(OffsetDateTime.class, "select clock_timestamp()");
            assertEquals(List.of("on time"), got.stream().map(Msg::payload).toList());
            assertFalse(got.get(0).createdAt().isBefore(due), "not before it was due");
            assertTrue(arrived.isBefore(due.plusSeconds(5)), "delivered at " + arrived + " for " + due);
        }
    }

    /**
     * The moves are part of the ticker's transaction, which may also write the tick: the events
     * belong to whichever window first sees that transaction committed, and to no other.
     */
    @Test
    void eventsMovedByATickThatAlsoTicksAreDeliveredExactlyOnce() {
        String q = "sametx";
        sql.createQueue(q);
        sql.config(q, "ticker_max_count", "1");
        sql.subscribe(q, "c");
        sql.tick(q);
        OffsetDateTime due = inMillis(300);
        for (int i = 0; i < 5; i++) {
            sendAt(q, "e" + i, due, "k");
        }
        awaitClockPast(due);
        assertNotNull(sql.oneLongOrNull("select pgque.ticker(?::text)", q), "the moved events made this call tick");
        sql.tick(q);
        assertEquals(List.of("e0", "e1", "e2", "e3", "e4"), sql.drain(q, "c").stream().map(Msg::payload).toList());
        sql.tick(q);
        assertEquals(List.of(), sql.drain(q, "c"), "and never again");
    }

    @Test
    void anEventFallingDueWhileItsProducerIsStillOpenIsMovedOnceItCommits() throws Exception {
        String q = "openproducer";
        queueWithConsumer(q);
        OffsetDateTime due;
        try (Connection producer = sql.connect()) {
            producer.setAutoCommit(false);
            due = Jdbc.one(producer, OffsetDateTime.class, "select clock_timestamp() + interval '300 milliseconds'");
            Jdbc.exec(producer, "select pgque.send_at(?, 't', 'late'::text, ?, 'k')", q, due);
            awaitClockPast(due);
            assertEquals(0, sql.oneLong("select pgque.maint_deliver_delayed()"), "an uncommitted send is not there to move");
            sql.tick(q);
            assertEquals(List.of(), sql.drain(q, "c"));
            producer.commit();
        }
        sql.exec("select pgque.ticker(?::text)", q);
        sql.tick(q);
        assertEquals(List.of("late"), sql.drain(q, "c").stream().map(Msg::payload).toList());
        sql.tick(q);
        assertEquals(List.of(), sql.drain(q, "c"));
        assertEquals(0, held(q));
    }

    @Test
    void twoMoversNeverMoveAnEventTwiceAndAMoveRolledBackLeavesItHeld() throws Exception {
        String q = "twomovers";
        queueWithConsumer(q);
        OffsetDateTime due = inMillis(300);
        for (int i = 0; i < 3; i++) {
            sendAt(q, "e" + i, due, "k");
        }
        awaitClockPast(due);
        try (Connection first = sql.connect(); Connection second = sql.connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(true);
            assertEquals(3, Jdbc.one(first, Integer.class, "select pgque.maint_deliver_delayed()"));
            first.rollback();
            assertEquals(3, held(q), "a move rolled back leaves the events held");

            assertEquals(3, Jdbc.one(first, Integer.class, "select pgque.maint_deliver_delayed()"));
            // The first mover holds the queue's tickers' lock until it commits: the others leave the queue to it.
            assertNull(Jdbc.one(second, Long.class, "select pgque.ticker(?::text)", q), "a ticker skips the queue");
            assertEquals(0, Jdbc.one(second, Integer.class, "select pgque.maint_deliver_delayed()"));
            first.commit();
        }
        sql.tick(q);
        sql.tick(q);
        assertEquals(List.of("e0", "e1", "e2"), sql.drain(q, "c").stream().map(Msg::payload).toList());
        assertEquals(0, held(q));
    }

    @Test
    void dropQueueWaitsForAnOpenSendAtAndRemovesWhatItHeld() throws Exception {
        String q = "dropped";
        sql.createQueue(q);
        try (Connection producer = sql.connect()) {
            producer.setAutoCommit(false);
            Jdbc.exec(producer, "select pgque.send_at(?, 't', 'x'::text, now() + interval '1 hour')", q);
            CompletableFuture<Long> drop = CompletableFuture.supplyAsync(
                    () -> sql.oneLong("select pgque.drop_queue(?)", q));
            Await.until("drop_queue to wait for the producer's lock", WAIT, () -> sql.oneLong(
                    "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and query like '%drop_queue%'"
                            + " and pid <> pg_backend_pid()") == 1);
            assertFalse(drop.isDone());
            producer.commit();
            assertEquals(1L, drop.get(30, TimeUnit.SECONDS));
        }
        assertEquals(0, held(q), "the held event went with its queue");
    }

    @Test
    void heldEventsAreNoLagAndUninstallCountsThem() {
        String q = "nolag";
        queueWithConsumer(q);
        sql.exec("select pgque.subscribe_partitioned(?, 'slots', 2)", q);
        sql.tick(q);
        sql.drain(q, "c");
        sql.exec("select count(pgque.send_at(?, 't', g::text, now() + interval '1 hour', 'k' || g)) "
                + "from generate_series(1, 20) g", q);
        sql.tick(q);
        assertEquals(0, sql.oneLong("select ev_new from pgque.get_queue_info(?)", q));
        assertEquals(0, sql.oneLong("select unticked_events from pgque.tick_backlog((select queue_id from pgque.queue "
                + "where queue_name = ?))", q));
        assertEquals(0, sql.oneLong("select depth from pgque.queue_stats() where queue_name = ?", q));
        assertEquals(0, sql.oneLong("select pending_events from pgque.consumer_stats() where queue_name = ? "
                + "and consumer_name = 'c'", q));
        assertEquals(0, sql.oneLong("select coalesce(sum(backlog_events), 0) from pgque.partition_slot_status "
                + "where queue_name = ?", q));
        assertEquals("20 delayed event(s) held", sql.one(String.class,
                "select unconsumed from pgque.uninstall_unconsumed() where queue_name = ?", q));
    }

    /**
     * A tick reads the due end of the index, whatever the queue holds for later. (The transaction's
     * own statistics, before and after: pg_stat_xact_user_tables may also carry counts of this
     * session's earlier transactions that are not flushed yet.)
     */
    @Test
    void aTickDoesNotScanTheEventsHeldForLater() throws Exception {
        String q = "manyheld";
        sql.createQueue(q);
        sql.exec("select count(pgque.send_at(?, 't', g::text, now() + interval '1 hour' + g * interval '1 millisecond')) "
                + "from generate_series(1, 20000) g", q);
        for (boolean analyzed : new boolean[] {false, true}) {
            if (analyzed) {
                sql.exec("analyze pgque.delayed_events");
            }
            try (Connection c = sql.connect()) {
                c.setAutoCommit(false);
                String stats = "select seq_scan, seq_tup_read, idx_tup_fetch from pg_stat_xact_user_tables "
                        + "where relid = 'pgque.delayed_events'::regclass";
                Map<String, Object> before = Jdbc.rows(c, stats).get(0);
                Jdbc.exec(c, "select pgque.ticker(?::text)", q);
                Jdbc.exec(c, "select pgque.ticker_round('1 microsecond')");
                Jdbc.exec(c, "select pgque.maint_deliver_delayed()");
                Map<String, Object> after = Jdbc.rows(c, stats).get(0);
                String what = " (analyzed: " + analyzed + ") " + before + " -> " + after;
                assertEquals(before.get("seq_scan"), after.get("seq_scan"), "no sequential scan" + what);
                assertEquals(before.get("seq_tup_read"), after.get("seq_tup_read"), "no sequential scan" + what);
                // Index probes of every queue may meet a few rows (dead ones of earlier moves), never the 20,000.
                assertTrue(delta(before, after, "idx_tup_fetch") < 100, "rows read through the index" + what);
                c.rollback();
            }
        }
        assertEquals(20000, held(q));
    }

    private static long delta(Map<String, Object> before, Map<String, Object> after, String column) {
        return ((Number) after.get(column)).longValue() - ((Number) before.get(column)).longValue();
    }

    private static long lastTick(String q) {
        return sql.oneLong("select max(t.tick_id) from pgque.tick t join pgque.queue q on q.queue_id = t.tick_queue "
                + "where q.queue_name = ?", q);
    }
}

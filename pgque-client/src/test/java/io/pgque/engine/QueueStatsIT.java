/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Jdbc;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.pgque.testing.SqlValues.asLong;
import static io.pgque.testing.SqlValues.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * queue_stats(), the per-queue figures an exporter reads: PgQue's columns in PgQue's order, then
 * this engine's; readable by a monitoring login that has only the reader role; and "rotation
 * pinned" exactly when rotation step 1 is held back by a cursor, which is what an alert on it
 * promises. It takes no lock a producer, a ticker or a rotation in another session holds.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class QueueStatsIT {

    /** PgQue's queue_stats() columns, in its order. */
    private static final List<String> PGQUE_COLUMNS = List.of("queue_name", "queue_id", "depth", "oldest_msg_age",
            "consumers", "events_per_sec", "cur_table", "rotation_age", "rotation_period", "ticker_paused",
            "last_tick_time", "last_tick_id", "dlq_count");
    private static final List<String> OWN_COLUMNS = List.of("unticked_events", "ticker_lag", "retry_events",
            "rotation_pinned", "rotation_pinned_by");
    private static final String MONITOR = "queue_stats_monitor";
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private static Sql sql;
    private static Sql monitor;

    @BeforeAll
    static void installEngine() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("queue_stats").installEngine();
        sql = new Sql(db.superuser());
        sql.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + MONITOR + "') then"
                + " create role " + MONITOR + " login; end if; end $$");
        sql.exec("grant pgque_reader to " + MONITOR);
        monitor = new Sql(db.as(MONITOR));
    }

    private static Map<String, Object> stats(Sql who, String queue) {
        List<Map<String, Object>> rows = who.rows("select * from pgque.queue_stats() where queue_name = ?", queue);
        assertEquals(1, rows.size(), "one row for " + queue);
        return rows.get(0);
    }

    @Test
    void aMonitoringLoginReadsPgQuesColumnsInPgQuesOrderThenTheEnginesOwn() {
        String q = "qs_columns";
        sql.createQueue(q);
        List<String> expected = new ArrayList<>(PGQUE_COLUMNS);
        expected.addAll(OWN_COLUMNS);
        assertEquals(expected, new ArrayList<>(stats(monitor, q).keySet()));
    }

    @Test
    void theFiguresCountBacklogRetriesDeadLettersAndUntickedEvents() {
        String q = "qs_figures";
        sql.createQueue(q);
        sql.config(q, "max_retries", "0");
        sql.subscribe(q, "fast");
        sql.subscribe(q, "slow");
        sql.sendBatch(q, "warm-up");
        sql.tick(q);
        sql.drain(q, "fast");
        sql.drain(q, "slow");

        sql.sendBatch(q, "a", "b", "c", "d");
        sql.tick(q);
        List<Msg> fast = sql.nextBatch(q, "fast");
        assertEquals(4, fast.size());
        assertEquals(1, sql.nack(fast.get(0), "0 seconds", "poison"), "max_retries 0: straight to the dead letters");
        sql.config(q, "max_retries", "5");
        assertEquals(1, sql.nack(fast.get(1), "1 hour", null));
        assertEquals(1, sql.ack(fast.get(0).batchId()));
        sql.sendBatch(q, "unticked-1", "unticked-2");

        Map<String, Object> s = stats(monitor, q);
        assertEquals(4, asLong(s.get("depth")), "the slow consumer's backlog, the largest: " + s);
        assertEquals(2, asLong(s.get("consumers")));
        assertEquals(1, asLong(s.get("dlq_count")), "max_retries 0 dead-lettered one event: " + s);
        assertEquals(1, asLong(s.get("retry_events")), "one nack waits in the retry queue: " + s);
        assertEquals(2, asLong(s.get("unticked_events")), "sent after the last tick: " + s);
        assertEquals(sql.oneLong("select max(tick_id) from pgque.tick t join pgque.queue q on q.queue_id = t.tick_queue"
                + " where q.queue_name = ?", q), asLong(s.get("last_tick_id")));
        assertTrue(seconds(s.get("ticker_lag")) >= 0);
        assertTrue(seconds(s.get("oldest_msg_age")) >= seconds(s.get("ticker_lag")),
                "the slowest cursor's tick is no younger than the last tick: " + s);
        assertEquals(false, s.get("ticker_paused"));
        assertEquals(2 * 3600.0, seconds(s.get("rotation_period")));
        assertEquals(false, s.get("rotation_pinned"), "the rotation period has not passed: " + s);
        assertNull(s.get("rotation_pinned_by"));

        sql.drain(q, "slow");
        assertEquals(0, asLong(stats(monitor, q).get("depth")), "both consumers at the last tick");
    }

    @Test
    void rotationIsPinnedExactlyWhileAStalledCursorHoldsRotationBack() {
        String q = "qs_rotation";
        sql.createQueue(q);
        sql.subscribe(q, "fast");
        sql.subscribe(q, "stalled");
        sql.config(q, "rotation_period", "1 second");
        // Everyone caught up: the first due rotation happens, and it settles a switch.
        sql.sendBatch(q, "e1");
        sql.tick(q);
        sql.drain(q, "stalled");
        int first = sql.curTable(q);
        assertTrue(Sql.await(DEADLINE, Duration.ofMillis(100), () -> {
            sql.tick(q);
            sql.drain(q, "fast");
            sql.drain(q, "stalled");
            sql.rotateSteps(q);
            return sql.curTable(q) != first;
        }), "with every consumer caught up, rotation happens");

        // From now on only the fast consumer reads.
        assertTrue(Sql.await(DEADLINE, Duration.ofMillis(100), () -> {
            sql.sendBatch(q, "e");
            sql.tick(q);
            sql.drain(q, "fast");
            return Boolean.TRUE.equals(stats(monitor, q).get("rotation_pinned"));
        }), "once the period has passed, the stalled cursor pins rotation");
        Map<String, Object> pinned = stats(monitor, q);
        assertEquals("stalled", pinned.get("rotation_pinned_by"), pinned.toString());
        assertTrue(seconds(pinned.get("rotation_age")) > seconds(pinned.get("rotation_period")), pinned.toString());
        int held = sql.curTable(q);
        sql.rotateSteps(q);
        assertEquals(held, sql.curTable(q), "what queue_stats calls pinned, step 1 does not rotate");

        sql.drain(q, "stalled");
        assertTrue(Sql.await(DEADLINE, Duration.ofMillis(100), () -> {
            sql.tick(q);
            sql.drain(q, "fast");
            sql.drain(q, "stalled");
            return !Boolean.TRUE.equals(stats(monitor, q).get("rotation_pinned"));
        }), "once the stalled consumer has read past the switch, nothing pins rotation");
        assertTrue(Sql.await(DEADLINE, Duration.ofMillis(100), () -> {
            sql.rotateSteps(q);
            return sql.curTable(q) != held;
        }), "and step 1 rotates again");
    }

    /**
     * A second session holds what rotation holds until it commits (the queue row, an ACCESS
     * EXCLUSIVE lock on the event table it truncated): queue_stats() answers without waiting
     * (a lock wait would run into the monitoring session's lock_timeout), with what is committed.
     */
    @Test
    void aRotationInFlightInAnotherSessionNeitherBlocksNorShowsUntilItCommits() throws SQLException {
        String q = "qs_concurrent";
        sql.createQueue(q);
        sql.config(q, "rotation_period", "1 second");
        assertTrue(Sql.await(DEADLINE, Duration.ofMillis(100),
                () -> seconds(stats(monitor, q).get("rotation_age")) > 1),
                "the rotation period passes");
        int before = sql.curTable(q);
        try (Connection rotation = sql.connect(); Connection monitoring = monitor.connect()) {
            rotation.setAutoCommit(false);
            assertEquals(1, Jdbc.one(rotation, Integer.class, "select pgque.maint_rotate_tables_step1(?)", q),
                    "step 1 switches, and holds its locks until commit");
            Jdbc.exec(monitoring, "set lock_timeout = '2s'");
            Map<String, Object> during = Jdbc.rows(monitoring, "select * from pgque.queue_stats() where queue_name = ?", q).get(0);
            assertEquals(before, asLong(during.get("cur_table")), "the switch is not committed yet: " + during);
            rotation.commit();
            Map<String, Object> after = Jdbc.rows(monitoring, "select * from pgque.queue_stats() where queue_name = ?", q).get(0);
            assertTrue(asLong(after.get("cur_table")) != before, "the committed switch shows: " + after);
            assertTrue(seconds(after.get("rotation_age")) < seconds(during.get("rotation_age")), after.toString());
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 15 item 3: the PgQ/PgQue functions scripts call (current_event_table, quote_fqname,
 * seq_getval, status, uninstall, force_tick, dlq_replay_all, get_batch_cursor, consumer_stats),
 * the scheduling functions on a server without pg_cron (start, stop, set_tick_period_ms,
 * ticker_loop), and who may call them. pg_cron itself: {@link PgCronTickingIT}.
 */
class LifecycleFunctionsIT {

    private static final String DENIED = "42501";
    private static final String ADMIN = "lifecycle_admin";
    private static final String READER = "lifecycle_reader";
    private static final String WRITER = "lifecycle_writer";

    private static Sql sql;
    private static Sql admin;
    private static Sql reader;
    private static Sql writer;

    @BeforeAll
    static void installEngineAndRoles() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("lifecycle").installEngine();
        sql = new Sql(db.superuser());
        for (String r : List.of(ADMIN, READER, WRITER)) {
            sql.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + r + "') then"
                    + " create role " + r + " login; end if; end $$");
        }
        sql.exec("grant pgque_admin to " + ADMIN);
        sql.exec("grant pgque_reader to " + READER);
        sql.exec("grant pgque_writer to " + WRITER);
        admin = new Sql(db.as(ADMIN));
        reader = new Sql(db.as(READER));
        writer = new Sql(db.as(WRITER));
    }

    @Test
    void currentEventTableNamesTheActiveTableAndRefusesWhenInsertIsDisabled() {
        String q = "cet_q";
        sql.createQueue(q);
        String table = admin.one(String.class, "select pgque.current_event_table(?)", q);
        Map<String, Object> row = sql.rows("select queue_data_pfx, queue_cur_table from pgque.queue where queue_name = ?", q).get(0);
        assertEquals(row.get("queue_data_pfx") + "_" + row.get("queue_cur_table"), table);
        // a PgQ-style direct insert into that table is a normal event
        sql.subscribe(q, "c");
        sql.exec("insert into " + table + " (ev_time, ev_type, ev_data) values (now(), 't', 'direct')");
        sql.tick(q);
        assertEquals(List.of("direct"), sql.drain(q, "c").stream().map(Msg::payload).toList());

        sql.config(q, "disable_insert", "true");
        Sql.expectSqlState("55000", () -> admin.exec("select pgque.current_event_table(?)", q));
        Sql.expectSqlState("PQ001", () -> admin.exec("select pgque.current_event_table('no_such_queue')"));
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.current_event_table(?)", q));
        Sql.expectSqlState(DENIED, () -> writer.exec("select pgque.current_event_table(?)", q));
    }

    @Test
    void quoteFqnameQuotesSchemaAndNameAndDefaultsToPublic() {
        assertEquals("public.plain", admin.one(String.class, "select pgque.quote_fqname('plain')"));
        assertEquals("public.\"Mixed\"", admin.one(String.class, "select pgque.quote_fqname('Mixed')"));
        assertEquals("s.t", admin.one(String.class, "select pgque.quote_fqname('s.t')"));
        assertEquals("\"My S\".\"t.x\"", admin.one(String.class, "select pgque.quote_fqname('My S.t.x')"),
                "the first dot separates the schema");
        assertNull(admin.one(String.class, "select pgque.quote_fqname(null)"));
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.quote_fqname('x')"));
    }

    @Test
    void seqGetvalReadsLastValueWhateverIsCalledSaysAndIsAdminOnly() {
        sql.exec("create sequence lifecycle_seq");
        sql.exec("grant select on lifecycle_seq to " + ADMIN);
        assertEquals(1, admin.oneLong("select pgque.seq_getval('public.lifecycle_seq')"), "fresh: 1");
        sql.exec("select nextval('lifecycle_seq')");
        assertEquals(1, admin.oneLong("select pgque.seq_getval('public.lifecycle_seq')"), "after the first nextval: 1");
        sql.exec("select nextval('lifecycle_seq')");
        assertEquals(2, admin.oneLong("select pgque.seq_getval('public.lifecycle_seq')"));
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.seq_getval('public.lifecycle_seq')"));
        Sql.expectSqlState(DENIED, () -> writer.exec("select pgque.seq_getval('public.lifecycle_seq')"));
        sql.exec("create sequence lifecycle_private_seq");
        Sql.expectSqlState(DENIED, () -> admin.exec("select pgque.seq_getval('public.lifecycle_private_seq')"));
    }

    @Test
    void forceTickIsAnAliasOfForceNextTick() {
        String q = "force_q";
        sql.createQueue(q);
        assertNotNull(sql.oneLongOrNull("select pgque.ticker(?::text)", q));
        assertNull(sql.oneLongOrNull("select pgque.ticker(?::text)", q), "nothing due");
        long last = admin.oneLong("select pgque.force_tick(?)", q);
        Long tick = sql.oneLongOrNull("select pgque.ticker(?::text)", q);
        assertNotNull(tick, "force_tick makes the next ticker() tick");
        assertTrue(tick > last);
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.force_tick(?)", q));
    }

    @Test
    void dlqReplayAllResendsEveryDeadLetterOfTheQueueOldestFirst() {
        String q = "dlq_all_q";
        sql.createQueue(q);
        sql.config(q, "max_retries", "0");
        sql.subscribe(q, "c");
        List<Long> sent = sql.sendBatch(q, "a", "b", "c");
        sql.tick(q);
        List<Msg> got = sql.receive(q, "c", 10);
        for (Msg m : got) {
            sql.nack(m, "0 seconds", "bad");
        }
        sql.ack(got.get(0).batchId());
        assertEquals(3, sql.rows("select * from pgque.dlq_inspect(?)", q).size());
        // PgQue's result: (replayed, failed, first_error). While inserts are refused nothing is
        // replayed or lost: every dead letter counts as failed, the first one's id names the error.
        sql.config(q, "disable_insert", "true");
        Map<String, Object> refused = reader.rows("select * from pgque.dlq_replay_all(?)", q).get(0);
        assertEquals(List.of("replayed", "failed", "first_error"), new ArrayList<>(refused.keySet()));
        assertEquals(0L, ((Number) refused.get("replayed")).longValue());
        assertEquals(3L, ((Number) refused.get("failed")).longValue());
        long firstDl = sql.oneLong("select min(dl_id) from pgque.dead_letter d join pgque.queue qq on qq.queue_id = d.dl_queue_id"
                + " where qq.queue_name = ?", q);
        assertEquals("dl_id=" + firstDl + ": Insert into queue disallowed", refused.get("first_error"));
        assertEquals(3, sql.rows("select * from pgque.dlq_inspect(?)", q).size(), "kept");
        sql.config(q, "disable_insert", null);
        Map<String, Object> done = reader.rows("select * from pgque.dlq_replay_all(?)", q).get(0);
        assertEquals(3L, ((Number) done.get("replayed")).longValue());
        assertEquals(0L, ((Number) done.get("failed")).longValue());
        assertNull(done.get("first_error"));
        assertEquals(0, sql.rows("select * from pgque.dlq_inspect(?)", q).size());
        assertEquals(0, reader.oneLong("select replayed from pgque.dlq_replay_all(?)", q), "nothing left");
        sql.tick(q);
        List<Msg> replayed = sql.drain(q, "c");
        assertEquals(List.of("a", "b", "c"), replayed.stream().map(Msg::payload).toList(), "oldest first");
        assertTrue(replayed.stream().allMatch(m -> m.msgId() > sent.get(2)), "new ids");
        Sql.expectSqlState("PQ001", () -> reader.exec("select pgque.dlq_replay_all('no_such_queue')"));
        // Replay is a reader's or an admin's action (issue 40): a writer cannot read dead letters.
        Sql.expectSqlState(DENIED, () -> writer.exec("select pgque.dlq_replay_all(?)", q));
    }

    @Test
    void getBatchCursorReturnsTheQuickRowsAndLeavesTheRestInTheCursor() throws Exception {
        String q = "cursor_q";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        List<Long> sent = sql.sendBatch(q, "e1", "e2", "e3", "e4", "e5");
        sql.tick(q);
        long batch = sql.oneLong("select pgque.next_batch(?, 'c')", q);
        try (Connection c = admin.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            List<Long> quick = ids(s.executeQuery("select ev_id from pgque.get_batch_cursor(" + batch + ", 'cur', 2)"));
            assertEquals(sent.subList(0, 2), quick);
            List<Long> rest = ids(s.executeQuery("fetch all from cur"));
            assertEquals(sent.subList(2, 5), rest);
            s.execute("close cur");
            List<Long> filtered = ids(s.executeQuery("select ev_id from pgque.get_batch_cursor(" + batch
                    + ", 'cur2', 10, 'ev_data in (''e2'', ''e4'')')"));
            assertEquals(List.of(sent.get(1), sent.get(3)), filtered);
            // Fewer rows than the quick limit: as in PgQ the cursor is still open for FETCH and CLOSE.
            assertEquals(List.of(), ids(s.executeQuery("fetch all from cur2")));
            s.execute("close cur2");
            c.commit();
        }
        Sql.expectSqlState("PQ003", () -> admin.exec("select * from pgque.get_batch_cursor(-1, 'x', 1)"));
        Sql.expectSqlState(DENIED, () -> reader.exec("select * from pgque.get_batch_cursor(?::bigint, 'x', 1)", batch));
    }

    private static List<Long> ids(ResultSet rs) throws Exception {
        List<Long> out = new ArrayList<>();
        try (rs) {
            while (rs.next()) {
                out.add(rs.getObject(1) instanceof Number n ? n.longValue() : -1L);
            }
        }
        return out;
    }

    @Test
    void consumerStatsCountsPendingRetryAndDeadLetterEventsPerConsumer() {
        String q = "stats_q";
        sql.createQueue(q);
        sql.config(q, "max_retries", "1");
        sql.send(q, "warm-up"); // past PgQ's uncounted first event, so pending_events is exact
        sql.tick(q);
        sql.subscribe(q, "c");
        sql.subscribe(q, "d");
        sql.sendBatch(q, "x", "y");
        sql.tick(q);
        List<Msg> got = sql.receive(q, "c", 10);
        sql.nack(got.get(0), "1 hour", "later"); // retry row
        sql.ack(got.get(0).batchId());
        List<Map<String, Object>> rows = reader.rows("select * from pgque.consumer_stats() where queue_name = ?"
                + " order by consumer_name", q);
        assertEquals(List.of("queue_name", "consumer_name", "lag", "last_seen", "last_tick", "current_batch",
                "pending_events", "retry_events", "dead_letters"), new ArrayList<>(rows.get(0).keySet()));
        assertEquals(List.of("c", "d"), rows.stream().map(r -> r.get("consumer_name")).toList());
        assertEquals(1L, ((Number) rows.get(0).get("retry_events")).longValue());
        assertEquals(0L, ((Number) rows.get(0).get("pending_events")).longValue());
        assertEquals(0L, ((Number) rows.get(1).get("retry_events")).longValue());
        assertEquals(2L, ((Number) rows.get(1).get("pending_events")).longValue(), "d has read nothing");
        assertEquals(0L, ((Number) rows.get(1).get("dead_letters")).longValue());
    }

    @Test
    void statusRollsUpEngineSchedulerTickerQueuesAndConsumers() {
        String q = "status_q";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        sql.createQueue("status_paused");
        sql.config("status_paused", "ticker_paused", "true");
        Map<String, List<String>> rows = admin.rows("select * from pgque.status()").stream()
                .collect(Collectors.toMap(r -> (String) r.get("component"),
                        r -> java.util.Arrays.asList((String) r.get("status"), (String) r.get("detail"))));
        // PgQue's rows first (issue 41), by component name.
        assertEquals(List.of("info", sql.one(String.class, "select version()")), rows.get("postgresql"));
        assertEquals(List.of("info", sql.one(String.class, "select pgque.version()")), rows.get("pgque"));
        assertEquals("manual", rows.get("scheduler").get(0), "no scheduler here");
        assertEquals("stopped", rows.get("ticker").get(0));
        assertEquals("stopped", rows.get("maintenance").get(0));
        assertEquals("unavailable", rows.get("pg_cron").get(0));
        assertEquals("unavailable", rows.get("pg_timetable").get(0));
        assertTrue(rows.get("pg_timetable").get(1).contains("start_timetable"), rows.get("pg_timetable").get(1));
        assertEquals("info", rows.get("queues").get(0));
        assertEquals(sql.one(Long.class, "select count(*) from pgque.queue").toString(), rows.get("queues").get(1));
        assertEquals(sql.one(Long.class, "select count(*) from pgque.subscription").toString(), rows.get("consumers").get(1));
        List<String> order = admin.rows("select component from pgque.status()").stream()
                .map(r -> (String) r.get("component")).limit(9).toList();
        assertEquals(List.of("postgresql", "pgque", "scheduler", "ticker", "maintenance", "pg_cron", "pg_timetable",
                "queues", "consumers"), order, "PgQue's rows first, in PgQue's order");
        // This engine's own rows follow.
        assertTrue(List.of("ok", "stale").contains(rows.get("ticking").get(0)), rows.get("ticking").toString());
        assertEquals("ok", rows.get("queue " + q).get(0));
        assertEquals("paused", rows.get("queue status_paused").get(0));
        assertEquals("ok", rows.get("consumer " + q + "/c").get(0));
        assertFalse(rows.keySet().stream().anyMatch(k -> k.startsWith("job ")), "no job rows without pg_cron");
        Sql.expectSqlState(DENIED, () -> reader.exec("select * from pgque.status()"));
        Sql.expectSqlState(DENIED, () -> writer.exec("select * from pgque.status()"));
    }

    @Test
    void startWithoutPgCronSaysSoAndStopIsHarmless() {
        Sql.SqlFailure e = org.junit.jupiter.api.Assertions.assertThrows(Sql.SqlFailure.class,
                () -> admin.exec("select pgque.start()"));
        java.sql.SQLException cause = (java.sql.SQLException) e.getCause();
        assertEquals("P0001", cause.getSQLState(), "raised as PgQue raises it");
        assertEquals("55000", io.pgque.client.PgQueException.sqlStateOf(cause), "the engine's code travels with it");
        assertTrue(cause.getMessage().contains("pg_cron extension is not installed. PgQue itself works without pg_cron, "
                + "but pgque.start() schedules cron jobs. Install pg_cron first, or run pgque.ticker() and pgque.maint() "
                + "manually."), "PgQue's whole message: " + cause.getMessage());
        assertTrue(cause.getMessage().contains("shared_preload_libraries"), "says what to do: " + cause.getMessage());
        admin.exec("select pgque.stop()");
        admin.exec("select pgque.stop()");
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.start()"));
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.stop()"));
    }

    @Test
    void setTickPeriodAcceptsExactDivisorsOfASecondOnly() {
        try {
            assertEquals(250, admin.oneLong("select pgque.set_tick_period_ms(250)"));
            assertEquals(250, sql.oneLong("select tick_period_ms from pgque.config"));
            for (String bad : List.of("0", "3", "1001", "-10", "null")) {
                Sql.expectSqlState("22023", () -> admin.exec("select pgque.set_tick_period_ms(" + bad + "::int)"));
            }
            assertEquals(250, sql.oneLong("select tick_period_ms from pgque.config"), "unchanged by bad calls");
            Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.set_tick_period_ms(100)"));
        } finally {
            sql.exec("select pgque.set_tick_period_ms(100)");
        }
    }

    @Test
    void tickerLoopTicksForOneSecondCommittingEachTick() {
        String q = "loop_q";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long id = sql.send(q, "via-loop");
        long start = System.nanoTime();
        admin.exec("call pgque.ticker_loop()");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs >= 800, "the loop keeps ticking for its one-second window: " + tookMs + " ms");
        assertEquals(List.of(id), sql.drain(q, "c").stream().map(Msg::msgId).toList(), "the loop ticked the queue");
        Sql.expectSqlState(DENIED, () -> reader.exec("call pgque.ticker_loop()"));
    }

    @Test
    void uninstallIsForTheOwnerAndDropsTheSchemaButKeepsTheRoles() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("uninstall").installEngine();
        Sql owner = new Sql(db.superuser());
        owner.createQueue("doomed");
        Sql.expectSqlState(DENIED, () -> new Sql(db.as(ADMIN)).exec("select pgque.uninstall()"));
        assertEquals(1, owner.oneLong("select count(*) from pg_namespace where nspname = 'pgque'"));
        owner.exec("select pgque.uninstall()");
        assertEquals(0, owner.oneLong("select count(*) from pg_namespace where nspname = 'pgque'"));
        assertEquals(3, owner.oneLong("select count(*) from pg_roles where rolname in ('pgque_reader', 'pgque_writer', 'pgque_admin')"));
        // and it can be installed again
        db.installEngine();
        assertEquals(1, owner.oneLong("select pgque.create_queue('reborn')"));
    }
}

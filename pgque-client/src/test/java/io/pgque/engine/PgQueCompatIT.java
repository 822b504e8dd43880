/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 41, the rest of the drop-in: code written for PgQue, run against this engine as a team
 * switching to it would run it. Each test follows the description.
 */
class PgQueCompatIT {

    private static final String ADMIN = "compat_admin";
    private static Sql sql;
    private static Sql admin;
    private static EmbeddedPg.TestDatabase db;

    @BeforeAll
    static void install() {
        db = EmbeddedPg.newDatabase("compat").installEngine();
        sql = new Sql(db.superuser());
        sql.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + ADMIN + "') then"
                + " create role " + ADMIN + " login; end if; end $$");
        sql.exec("grant pgque_admin to " + ADMIN);
        admin = new Sql(db.as(ADMIN));
        // A PgQue caller's handler: catches raise_exception and returns SQLERRM and the field that
        // carries this engine's own code.
        sql.exec("""
                create or replace function public.pgque_caller(i_sql text) returns text[] language plpgsql as $f$
                declare v_code text;
                begin
                    execute i_sql;
                    return null;
                exception when raise_exception then
                    get stacked diagnostics v_code = constraint_name;
                    return array[sqlerrm, v_code];
                end $f$""");
    }

    private static List<String> caught(String call) {
        Map<String, Object> got = sql.rows("select r[1] as message, r[2] as code from public.pgque_caller(?) r", call).get(0);
        assertNotNull(got.get("message"), "a handler for raise_exception caught the error of: " + call);
        return Arrays.asList((String) got.get("message"), (String) got.get("code"));
    }

    // ------------------------------------------------------------------ 1. the error class

    @Test
    void errorsPgQueRaisesAreRaisedAsPgQueDoes() {
        String q = "compat_errors";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        sql.send(q, "x");
        sql.tick(q);
        long batch = sql.oneLong("select pgque.next_batch(?, 'c')", q);

        assertEquals(List.of("msg_id 999999 not found in batch " + batch, "pgque:PQ008"),
                caught("select pgque.nack(" + batch + ", row(999999, " + batch + ", 't', 'p', 0, now(), null, null, null, null)::pgque.message)"));
        assertEquals(List.of("batch not found: 424242", "pgque:PQ003"),
                caught("select pgque.nack(424242, row(1, 424242, 't', 'p', 0, now(), null, null, null, null)::pgque.message)"));
        assertEquals(List.of("no such queue", "pgque:PQ001"), caught("select pgque.ticker('unknown')"));
        assertEquals(List.of("pg_cron extension is not installed. PgQue itself works without pg_cron, but pgque.start() "
                + "schedules cron jobs. Install pg_cron first, or run pgque.ticker() and pgque.maint() manually.", "pgque:55000"),
                caught("select pgque.start()"));

        sql.config(q, "max_retries", "0");
        long ev = sql.oneLong("select ev_id from pgque.get_batch_events(?)", batch);
        sql.exec("select pgque.nack(?, row(?, ?, 't', 'p', 0, now(), null, null, null, null)::pgque.message)", batch, ev, batch);
        sql.ack(batch);
        long dl = sql.oneLong("select max(dl_id) from pgque.dead_letter");
        sql.exec("select pgque.dlq_replay(?)", dl);
        assertEquals(List.of("dead letter entry not found: " + dl, "pgque:22023"), caught("select pgque.dlq_replay(" + dl + ")"));

        // Conditions PgQue does not have keep this engine's SQLSTATE.
        Sql.expectSqlState("PQ011", () -> {
            sql.exec("select pgque.subscribe_partitioned(?, 'p', 2)", q);
            sql.exec("select pgque.begin_resize(?, 'p', 3)", q);
            sql.exec("select pgque.claim_slot(?, 'p', 0, 'w')", q);
            try (Connection c = sql.connect(); Statement s = c.createStatement()) {
                s.execute("select * from pgque.receive_partitioned('" + q + "', 'p', 0, 3, 'w', 10)");
            }
        });
    }

    // ------------------------------------------------------------------ 3. PgQ's force-tick rule

    @Test
    void forcingATickAdvancesTheSequenceAsInPgqAndOurOwnFiguresStayHonest() {
        String q = "compat_force";
        sql.createQueue(q);
        sql.exec("select pgque.subscribe_partitioned(?, 'pc', 1)", q);
        for (int i = 0; i < 9; i++) {
            sql.exec("select pgque.send(?::text, 't', ?::text, ?::text)", q, "e" + i, "k" + i);
        }
        String seq = sql.one(String.class, "select queue_event_seq from pgque.queue where queue_name = ?", q);
        long before = sql.oneLong("select last_value from " + seq);
        sql.exec("select pgque.force_tick(?)", q);
        long after = sql.oneLong("select last_value from " + seq);
        assertEquals(500 * 2 + 1000, after - before, "advanced by ticker_max_count * 2 + 1000");
        assertNotNull(sql.oneLongOrNull("select pgque.ticker(?::text)", q), "the next ticker() ticks");

        Map<String, Object> slot = sql.rows("select * from pgque.partition_slot_status where queue_name = ?", q).get(0);
        long pending = ((Number) slot.get("pending_events")).longValue();
        assertTrue(pending >= 9, "PgQ's pending_events include the bump: " + slot);
        assertEquals(pending - 2000, ((Number) slot.get("backlog_events")).longValue(), "backlog_events leave it out: " + slot);
        assertEquals(0L, ((Number) slot.get("unticked_events")).longValue(), "nothing unticked after the tick: " + slot);
        assertEquals(9 - 1, ((Number) slot.get("backlog_events")).longValue(),
                "the events sent, less a fresh queue's first (PgQ's sequence reading)");
        assertEquals(0L, sql.oneLong("select unticked_events from pgque.tick_backlog((select queue_id from pgque.queue"
                + " where queue_name = ?))", q));
    }

    // ------------------------------------------------------------------ 4. insert_event_bulk

    @Test
    void insertEventBulkIsPgQuesOwnerOnlyPrimitive() {
        String q = "compat_bulk";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        List<Long> ids = sql.longArray("select pgque.insert_event_bulk(?, 'bulk', array['a', null, 'c'])", q);
        assertEquals(3, ids.size());
        assertTrue(ids.get(0) < ids.get(1) && ids.get(1) < ids.get(2), "ids in input order: " + ids);
        assertEquals(List.of(), sql.longArray("select pgque.insert_event_bulk(?, 'bulk', '{}'::text[])", q));
        sql.tick(q);
        List<Msg> got = sql.drain(q, "c");
        assertEquals(Arrays.asList("a", null, "c"), got.stream().map(Msg::payload).toList(), "NULL stays a NULL payload");
        assertEquals(List.of("bulk", "bulk", "bulk"), got.stream().map(Msg::type).toList());
        Sql.expectSqlState("42501", () -> admin.exec("select pgque.insert_event_bulk(?, 'x', array['a'])", q));
        assertEquals(List.of("queue not found: nope", "pgque:PQ001"),
                caught("select pgque.insert_event_bulk('nope', 'x', array['a'])"));
    }

    // ------------------------------------------------------------------ 5. cooperative next_batch_custom

    @Test
    void cooperativeNextBatchCustomHonoursMinCountLikeThePlainOne() {
        String q = "compat_coop";
        sql.createQueue(q);
        sql.exec("select pgque.register_subconsumer(?, 'main_c', 'w1')", q);
        sql.send(q, "one");
        sql.exec("select pgque.force_tick(?)", q);
        sql.exec("select pgque.ticker(?::text)", q);
        Map<String, Object> b = sql.rows("select * from pgque.next_batch_custom(?, 'main_c', 'w1', null, 1, null, null)", q).get(0);
        assertNotNull(b.get("batch_id"), "a batch was allocated: " + b);
        assertNotNull(b.get("prev_tick_id"));
        assertNotNull(b.get("next_tick_id"));
        assertEquals(List.of("one"), sql.messages("select * from pgque.read_batch(?)", b.get("batch_id")).stream()
                .map(Msg::payload).toList());
        sql.ack(((Number) b.get("batch_id")).longValue());

        // min_count and min_interval hold back a member as they hold back a plain consumer.
        sql.send(q, "two");
        sql.exec("select pgque.force_tick(?)", q);
        sql.exec("select pgque.ticker(?::text)", q);
        assertEquals(null, sql.rows("select * from pgque.next_batch_custom(?, 'main_c', 'w1', null, 1000000, null, null)", q)
                .get(0).get("batch_id"), "fewer events than min_count");
        assertEquals(null, sql.rows("select * from pgque.next_batch_custom(?, 'main_c', 'w1', null, null, '1 hour', null)", q)
                .get(0).get("batch_id"), "younger than min_interval");
        assertEquals(null, sql.rows("select * from pgque.next_batch_custom(?, 'main_c', 'w1', '1 hour', null, null, null)", q)
                .get(0).get("batch_id"), "younger than min_lag");
        assertNotNull(sql.rows("select * from pgque.next_batch_custom(?, 'main_c', 'w1', null, 1, null, null)", q)
                .get(0).get("batch_id"));
    }

    // ------------------------------------------------------------------ 6. get_batch_cursor

    @Test
    void getBatchCursorLeavesTheCursorOpenForTheCaller() throws Exception {
        String q = "compat_cursor";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        sql.send(q, "only");
        sql.tick(q);
        long batch = sql.oneLong("select pgque.next_batch(?, 'c')", q);
        try (Connection c = admin.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("select * from pgque.get_batch_cursor(" + batch + ", 'whole', 100)");
            s.execute("fetch all from whole");
            s.execute("close whole");
            c.commit();
        }
    }

    // ------------------------------------------------------------------ 7. pg_timetable

    @Test
    void timetableCallsNamePgTimetableWhenItIsAbsent() {
        for (String call : List.of("select pgque.start_timetable()", "select pgque.stop_timetable()")) {
            List<String> got = caught(call);
            assertTrue(got.get(0).startsWith("pg_timetable schema/API is not installed. "), got.toString());
            assertTrue(got.get(0).contains("pg_timetable"), got.toString());
        }
        assertEquals(List.of("ticks_per_second must be an exact divisor of 1000 between 1 and 1000 (got 7)", "pgque:22023"),
                caught("select pgque.start_timetable(7)"));
        assertEquals(List.of("ticks_per_second must be an exact divisor of 1000 between 1 and 1000 (got NULL)", "pgque:22023"),
                caught("select pgque.start_timetable(NULL)"));
        assertEquals(List.of("ticks_per_second must be an exact divisor of 1000 between 1 and 1000 (got 0)", "pgque:22023"),
                caught("select pgque.start_timetable(0)"));
    }

    @Test
    void timetableSchedulesTheTickerLoopRetriesAndMaintenance() {
        List<Map<String, Object>> plan = sql.rows("select * from pgque.timetable_schedule_sql() order by job_name");
        assertEquals(List.of("pgque_maint", "pgque_retry_events", "pgque_rotate_step2", "pgque_ticker"),
                plan.stream().map(r -> r.get("job_name")).toList());
        Map<String, Object> ticker = plan.get(3);
        assertEquals("SELECT timetable.add_job(job_name => 'pgque_ticker', job_schedule => '@every 1 seconds', "
                + "job_command => 'CALL pgque.ticker_loop()', job_kind => 'SQL')", ticker.get("schedule_sql"));
        assertEquals("SELECT timetable.delete_job('pgque_ticker')", ticker.get("unschedule_sql"));
    }

    @Test
    void withATimetableSchemaStartAndStopScheduleAndStatusSaysSo() {
        EmbeddedPg.TestDatabase tdb = EmbeddedPg.newDatabase("compat_timetable").installEngine();
        Sql owner = new Sql(tdb.superuser());
        // pg_timetable's API as far as the engine calls it, recording the calls.
        owner.exec("""
                create schema timetable;
                create table timetable.calls (id bigserial, fn text, job_name text, job_schedule text, job_command text, job_kind text);
                create function timetable.add_job(job_name text, job_schedule text, job_command text, job_kind text default 'SQL')
                  returns bigint language sql as
                  $f$ insert into timetable.calls (fn, job_name, job_schedule, job_command, job_kind)
                      values ('add_job', job_name, job_schedule, job_command, job_kind) returning id $f$;
                create function timetable.delete_job(job_name text) returns boolean language sql as
                  $f$ insert into timetable.calls (fn, job_name) values ('delete_job', job_name) returning true $f$;""");
        owner.exec("select pgque.start_timetable()");
        assertEquals(100, owner.oneLong("select tick_period_ms from pgque.config"), "PgQue's default: 10 ticks a second");
        owner.exec("select pgque.start_timetable(5)");
        assertEquals(4 + 4, owner.oneLong("select count(*) from timetable.calls where fn = 'add_job'"));
        assertEquals(2, owner.oneLong("select count(*) from timetable.calls where fn = 'add_job' and job_name = 'pgque_ticker'"
                + " and job_command = 'CALL pgque.ticker_loop()' and job_schedule = '@every 1 seconds'"));
        assertEquals(200, owner.oneLong("select tick_period_ms from pgque.config"), "5 ticks a second");
        // PgQue's config columns: the ids add_job returned for the ticker and the maintenance job
        assertEquals(1, owner.oneLong("select count(*) from pgque.config c"
                + " where c.ticker_job_id = (select max(id) from timetable.calls where fn = 'add_job' and job_name = 'pgque_ticker')"
                + " and c.maint_job_id = (select max(id) from timetable.calls where fn = 'add_job' and job_name = 'pgque_maint')"));
        Map<String, String> status = statusOf(owner);
        assertEquals("pg_timetable", status.get("scheduler"));
        assertEquals("scheduled", status.get("ticker"));
        assertEquals("scheduled", status.get("maintenance"));
        assertTrue(!status.containsKey("pg_timetable"), "no 'unavailable' row while its schema exists");

        owner.exec("select pgque.stop_timetable()");
        // each start deleted the four jobs and the retry job of engines before 0.5.0 ('pgque_retry'), and so did stop
        assertEquals(5 + 5 + 5, owner.oneLong("select count(*) from timetable.calls where fn = 'delete_job'"),
                "start replaced any old jobs, stop removed them");
        assertEquals(3, owner.oneLong("select count(*) from timetable.calls where fn = 'delete_job' and job_name = 'pgque_retry'"));
        assertEquals("manual", statusOf(owner).get("scheduler"));
        assertEquals(0, owner.oneLong("select count(*) from pgque.config where ticker_job_id is not null or maint_job_id is not null"));

        // PgQue's generic stop() stops pg_timetable's jobs when pg_timetable is the scheduler
        owner.exec("select pgque.start_timetable()");
        owner.exec("select pgque.stop()");
        assertEquals(5 + 5 + 5 + 5 + 5, owner.oneLong("select count(*) from timetable.calls where fn = 'delete_job'"));
        assertEquals("manual", statusOf(owner).get("scheduler"));
        assertEquals(0, owner.oneLong("select count(*) from pgque.config where ticker_job_id is not null or scheduler is not null"));

        // A timetable schema that someone else owns is not trusted with the owner's rights.
        owner.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = 'compat_tt_owner') then"
                + " create role compat_tt_owner; end if; end $$");
        owner.exec("alter schema timetable owner to compat_tt_owner");
        SQLException e = Sql.expectSqlState("42501", () -> owner.exec("select pgque.start_timetable()"));
        assertTrue(e.getMessage().contains("untrusted pg_timetable schema owner: compat_tt_owner"), e.getMessage());
    }

    private static Map<String, String> statusOf(Sql s) {
        return s.rows("select component, status from pgque.status()").stream()
                .collect(java.util.stream.Collectors.toMap(r -> (String) r.get("component"), r -> (String) r.get("status"),
                        (a, b) -> a));
    }
}

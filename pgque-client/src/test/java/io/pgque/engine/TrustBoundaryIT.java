/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 40, the engine's trust boundary (docs/operations.md "Trust model"): each role does what
 * its name says and no more, and no call loses an event by mistake. The two-session races of the
 * issue are in {@code io.pgque.partition.TrustBoundaryRacesIT}; per-database role names in
 * {@link PerDatabaseRolesIT}.
 */
class TrustBoundaryIT {

    private static final String DENIED = "42501";
    private static final String ADMIN = "tb_admin";
    private static final String READER = "tb_reader";
    private static final String WRITER = "tb_writer";
    private static final String WRITER2 = "tb_writer2";
    private static final String TICKER = "tb_ticker";

    private static Sql sql;
    private static Sql admin;
    private static Sql reader;
    private static Sql writer;
    private static Sql writer2;
    private static Sql ticker;

    @BeforeAll
    static void install() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("trust").installEngine();
        sql = new Sql(db.superuser());
        for (String r : List.of(ADMIN, READER, WRITER, WRITER2, TICKER)) {
            sql.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + r + "') then"
                    + " create role " + r + " login; end if; end $$");
        }
        sql.exec("grant pgque_admin to " + ADMIN);
        sql.exec("grant pgque_reader to " + READER);
        sql.exec("grant pgque_writer to " + WRITER + ", " + WRITER2);
        sql.exec("grant pgque_ticker to " + TICKER);
        admin = new Sql(db.as(ADMIN));
        reader = new Sql(db.as(READER));
        writer = new Sql(db.as(WRITER));
        writer2 = new Sql(db.as(WRITER2));
        ticker = new Sql(db.as(TICKER));
    }

    // ------------------------------------------------------------------ 1. admin is not the owner

    @Test
    void adminCannotChangeWhatTheOwnersCodeExecutes() {
        String q = "tb_admin_tables";
        admin.createQueue(q);
        String eventTable = sql.one(String.class, "select queue_data_pfx || '_0' from pgque.queue where queue_name = ?", q);
        // The attack of the issue: a table name in dynamic SQL, then drop_queue as the owner.
        Sql.expectSqlState(DENIED, () -> admin.exec("update pgque.queue set queue_data_pfx = "
                + "'pgque.event_1 CASCADE; DROP TABLE public.x; --' where queue_name = ?", q));
        Sql.expectSqlState(DENIED, () -> admin.exec("update pgque.queue set queue_extra_maint = '{public.f}' where queue_name = ?", q));
        Sql.expectSqlState(DENIED, () -> admin.exec("update pgque.subscription set sub_last_tick = 1"));
        Sql.expectSqlState(DENIED, () -> admin.exec("delete from pgque.dead_letter"));
        Sql.expectSqlState(DENIED, () -> admin.exec("insert into pgque.consumer (co_name) values ('x')"));
        Sql.expectSqlState(DENIED, () -> admin.exec("truncate pgque.tick"));
        Sql.expectSqlState(DENIED, () -> admin.exec("truncate " + eventTable));
        Sql.expectSqlState(DENIED, () -> admin.exec("create trigger tb_evil before update on pgque.queue "
                + "for each row execute function pgque.maint()"));
        Sql.expectSqlState(DENIED, () -> admin.exec("create trigger tb_evil before insert on " + eventTable
                + " for each row execute function pgque.maint()"));
        Sql.expectSqlState(DENIED, () -> admin.exec("select setval(?::regclass, 1)",
                sql.one(String.class, "select queue_event_seq from pgque.queue where queue_name = ?", q)));
        // An admin reads everything it operates, and operates through the functions.
        assertEquals(1, admin.oneLong("select count(*) from pgque.queue where queue_name = ?", q));
        admin.exec("select pgque.set_queue_config(?, 'ticker_max_count', '10')", q);
        assertEquals(1, admin.oneLong("select pgque.drop_queue(?)", q));
    }

    @Test
    void noRoleHasATableRightBeyondSelect() {
        // The catalog, for every role, table and right: nothing but SELECT (and nothing on idem).
        List<Map<String, Object>> extra = sql.rows("""
                select r.rolname, c.relname, p.privilege_type
                  from pg_class c
                 cross join (values ('pgque_admin'), ('pgque_reader'), ('pgque_writer'), ('pgque_ticker')) r(rolname)
                 cross join (values ('INSERT'), ('UPDATE'), ('DELETE'), ('TRUNCATE'), ('REFERENCES'), ('TRIGGER')) p(privilege_type)
                 where c.relnamespace = 'pgque'::regnamespace and c.relkind in ('r', 'p', 'v')
                   and has_table_privilege(r.rolname, c.oid, p.privilege_type)""");
        assertEquals(List.of(), extra);
        List<Map<String, Object>> sequences = sql.rows("""
                select r.rolname, c.relname from pg_class c
                 cross join (values ('pgque_admin'), ('pgque_reader'), ('pgque_writer'), ('pgque_ticker')) r(rolname)
                 where c.relnamespace = 'pgque'::regnamespace and c.relkind = 'S'
                   and has_sequence_privilege(r.rolname, c.oid, 'UPDATE, USAGE')""");
        assertEquals(List.of(), sequences);
    }

    @Test
    void tamperedNameColumnsNeverReachDynamicSql() {
        // Even the owner cannot store a name that is not the queue's own (the check constraint),
        // and the owner's code builds every name from the queue id.
        String q = "tb_names";
        sql.createQueue(q);
        sql.exec("create table if not exists public.tb_victim (x int)");
        Sql.expectSqlState("23514", () -> sql.exec("update pgque.queue set queue_data_pfx = "
                + "'pgque.event_1 CASCADE; DROP TABLE public.tb_victim; --' where queue_name = ?", q));
        assertEquals(1, sql.oneLong("select pgque.drop_queue(?)", q));
        assertEquals(0, sql.oneLong("select count(*) from public.tb_victim"), "the victim table is still there");
    }

    @Test
    void maintRunsOnlyTheEnginesOwnExtraMaintenance() {
        String q = "tb_extra_maint";
        sql.createQueue(q);
        // A function the owner owns, named as the engine's was (by text): never called.
        sql.exec("create or replace function public.tb_not_ours(text) returns int language sql as 'select 1/0'");
        sql.exec("update pgque.queue set queue_extra_maint = '{public.tb_not_ours}' where queue_name = ?", q);
        SQLWarning w = sql.exec("select pgque.maint()");
        assertNotNull(w, "maint() says what it skipped");
        assertTrue(w.getMessage().contains("public.tb_not_ours"), w.getMessage());
        // The engine's own (reaping expired idempotency keys) runs for every queue, listed or not.
        sql.exec("update pgque.queue set queue_extra_maint = '{pgque.maint_idem}' where queue_name = ?", q);
        sql.exec("select * from pgque.send_idem(?, 't', 'x', 'k', '1 millisecond')", q);
        Sql.await(java.time.Duration.ofSeconds(30), java.time.Duration.ofMillis(10), () ->
                sql.oneLong("select count(*) from pgque.idem i join pgque.queue qq on qq.queue_id = i.queue_id"
                        + " where qq.queue_name = ? and i.expires_at < clock_timestamp()", q) == 1);
        assertEquals(null, sql.exec("select pgque.maint()"), "no warning for the engine's own");
        assertEquals(0, sql.oneLong("select count(*) from pgque.idem i join pgque.queue qq on qq.queue_id = i.queue_id"
                + " where qq.queue_name = ?", q), "expired keys reaped");
    }

    @Test
    void tickerRoleTicksAndMaintainsAndNothingElse() {
        String q = "tb_ticker_role";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        sql.send(q, "x");
        assertNotNull(ticker.oneLongOrNull("select pgque.ticker_round('1 millisecond')"));
        ticker.exec("select pgque.ticker()");
        ticker.exec("select pgque.ticker(?::text)", q);
        ticker.exec("select pgque.maint()");
        ticker.exec("select pgque.maint_retry_events()");
        ticker.exec("select pgque.maint_rotate_tables_step2()");
        ticker.exec("select * from pgque.status()");
        assertNotNull(ticker.one(String.class, "select pgque.version()"));

        Sql.expectSqlState(DENIED, () -> ticker.exec("select pgque.create_queue('tb_by_ticker')"));
        Sql.expectSqlState(DENIED, () -> ticker.exec("select pgque.drop_queue(?)", q));
        Sql.expectSqlState(DENIED, () -> ticker.exec("select pgque.set_queue_config(?, 'ticker_paused', 'true')", q));
        Sql.expectSqlState(DENIED, () -> ticker.exec("select pgque.force_next_tick(?)", q));
        Sql.expectSqlState(DENIED, () -> ticker.send(q, "x"));
        Sql.expectSqlState(DENIED, () -> ticker.receive(q, "c", 10));
        Sql.expectSqlState(DENIED, () -> ticker.exec("select * from pgque.dlq_inspect(?)", q));
        Sql.expectSqlState(DENIED, () -> ticker.exec("select count(*) from pgque.subscription"));
        Sql.expectSqlState(DENIED, () -> ticker.exec("select count(*) from " + sql.one(String.class,
                "select queue_data_pfx from pgque.queue where queue_name = ?", q)));
        Sql.expectSqlState(DENIED, () -> ticker.exec("select pgque.uninstall()"));
    }

    // ------------------------------------------------------------------ 3. no way around a lease

    @Test
    void plainCallsRefuseSlotsAndTheirBatches() {
        String q = "tb_slots";
        sql.createQueue(q);
        reader.exec("select pgque.subscribe_partitioned(?, 'src', 2)", q);
        for (int i = 0; i < 20; i++) {
            sql.exec("select pgque.send(?::text, 't', ?::text, ?::text)", q, "e" + i, "k" + i);
        }
        sql.tick(q);
        String slot = "src#1/2";
        Sql.expectSqlState("PQ009", () -> reader.exec("select pgque.next_batch(?, ?)", q, slot));
        Sql.expectSqlState("PQ009", () -> reader.exec("select * from pgque.next_batch_info(?, ?)", q, slot));
        Sql.expectSqlState("PQ009", () -> reader.exec("select * from pgque.next_batch_custom(?, ?, null, null, null)", q, slot));
        Sql.expectSqlState("PQ009", () -> reader.exec("select pgque.register_consumer(?, 'sneaky#0/7')", q));
        Sql.expectSqlState("PQ009", () -> reader.exec("select pgque.register_consumer_at(?, 'sneaky#0/7', null)", q));
        Sql.expectSqlState("PQ009", () -> reader.exec("select pgque.unregister_consumer(?, ?)", q, slot));
        assertEquals(0, sql.oneLong("select count(*) from pgque.consumer where co_name = 'sneaky#0/7'"));

        // The lease holder's batch, attacked by its id.
        reader.exec("select pgque.claim_slot(?, 'src', 1, 'w1')", q);
        List<Msg> got = reader.messages("select * from pgque.receive_partitioned(?, 'src', 1, 2, 'w1', 100)", q);
        assertFalse(got.isEmpty(), "slot 1 has events");
        long batch = got.get(0).batchId();
        Sql.expectSqlState("PQ009", () -> reader.exec("select * from pgque.get_batch_events(?)", batch));
        Sql.expectSqlState("PQ009", () -> reader.exec("select pgque.finish_batch(?)", batch));
        Sql.expectSqlState("PQ009", () -> reader.exec("select pgque.event_retry(?, ?, 0)", batch, got.get(0).msgId()));
        Sql.expectSqlState("PQ009", () -> reader.exec("select pgque.event_retry(?, ?, now())", batch, got.get(0).msgId()));
        Sql.expectSqlState("PQ009", () -> admin.exec("select pgque.batch_retry(?, 0)", batch));
        Sql.expectSqlState("PQ009", () -> admin.exec("select * from pgque.get_batch_cursor(?, 'c', 10)", batch));
        // Nothing was acked behind the lease holder's back: it acks its whole batch itself.
        assertEquals(1, reader.oneLong("select pgque.ack_partitioned(?, 'src', 1, 2, 'w1', ?::bigint)", q, batch));
        // And the slots' own set-up still works.
        reader.exec("select pgque.unsubscribe_partitioned(?, 'src')", q);
        assertEquals(0, sql.oneLong("select count(*) from pgque.consumer where co_name like 'src#%'"));
    }

    @Test
    void plainCallsCannotBypassACooperativeMembersRules() {
        String q = "tb_coop";
        sql.createQueue(q);
        reader.exec("select pgque.register_subconsumer(?, 'grp', 'w1')", q);
        sql.send(q, "x");
        sql.tick(q);
        Sql.expectSqlState("PQ009", () -> reader.exec("select pgque.next_batch(?, 'grp.w1')", q));
        Sql.expectSqlState("PQ009", () -> reader.exec("select pgque.next_batch(?, 'grp')", q));
        long tick = sql.oneLong("select max(tick_id) from pgque.tick t join pgque.queue q on q.queue_id = t.tick_queue"
                + " where q.queue_name = ?", q);
        Sql.expectSqlState("PQ009", () -> reader.exec("select pgque.register_consumer_at(?, 'grp.w1', ?)", q, tick));
        long batch = reader.oneLong("select pgque.next_batch(?, 'grp', 'w1')", q);
        // A plain unregister of the member with its window open follows the member's rule (refused).
        Sql.expectSqlState("55000", () -> reader.exec("select pgque.unregister_consumer(?, 'grp.w1')", q));
        assertEquals(1, reader.oneLong("select pgque.ack(?)", batch));
    }

    // ------------------------------------------------------------------ 6. uninstall

    @Test
    void uninstallRefusesWhileOthersDependOnTheEngineOrEventsWait() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("trust_uninstall").installEngine();
        Sql owner = new Sql(db.superuser());
        owner.exec("create table public.keeps (id int, m pgque.message)");
        owner.exec("create view public.peeks as select queue_name from pgque.queue");
        SQLException refused = Sql.expectSqlState("2BP01", () -> owner.exec("select pgque.uninstall()"));
        assertTrue(refused.getMessage().contains("public.keeps") && refused.getMessage().contains("peeks"), refused.getMessage());
        assertEquals(1, owner.oneLong("select count(*) from pg_namespace where nspname = 'pgque'"), "nothing dropped");
        owner.exec("drop view public.peeks");
        owner.exec("drop table public.keeps");

        owner.createQueue("unread");
        owner.subscribe("unread", "c");
        owner.send("unread", "not yet consumed");
        owner.tick("unread");
        refused = Sql.expectSqlState("55006", () -> owner.exec("select pgque.uninstall()"));
        assertTrue(refused.getMessage().contains("unread"), refused.getMessage());
        assertEquals(1, owner.drain("unread", "c").size());
        owner.exec("select pgque.uninstall()");
        assertEquals(0, owner.oneLong("select count(*) from pg_namespace where nspname = 'pgque'"));
    }

    @Test
    void uninstallWithForceDropsEverything() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("trust_uninstall_force").installEngine();
        Sql owner = new Sql(db.superuser());
        owner.exec("create view public.peeks as select queue_name from pgque.queue");
        owner.createQueue("unread");
        owner.subscribe("unread", "c");
        owner.send("unread", "x");
        owner.exec("select pgque.uninstall(true)");
        assertEquals(0, owner.oneLong("select count(*) from pg_namespace where nspname = 'pgque'"));
        assertEquals(0, owner.oneLong("select count(*) from pg_class where relname = 'peeks'"), "force takes dependents along");
    }

    // ------------------------------------------------------------------ 7. dead letters are kept

    @Test
    void unsubscribingKeepsTheConsumersDeadLetters() {
        String q = "tb_dlq_kept";
        sql.createQueue(q);
        sql.config(q, "max_retries", "0");
        reader.exec("select pgque.subscribe(?, 'lonely')", q);
        sql.send(q, "bad-1");
        sql.send(q, "bad-2");
        sql.tick(q);
        List<Msg> got = reader.receive(q, "lonely", 10);
        assertEquals(2, got.size());
        for (Msg m : got) {
            reader.nack(m, "0 seconds", "poison");
        }
        reader.ack(got.get(0).batchId());
        assertEquals(2, reader.rows("select * from pgque.dlq_inspect(?)", q).size());
        assertEquals(1, reader.oneLong("select pgque.unsubscribe(?, 'lonely')", q));
        assertEquals(2, reader.rows("select * from pgque.dlq_inspect(?)", q).size(), "dead letters are evidence");
        // Subscribing again under the name finds them as its own.
        reader.exec("select pgque.subscribe(?, 'lonely')", q);
        assertEquals(2, sql.oneLong("select dead_letters from pgque.consumer_stats() where queue_name = ? and consumer_name = 'lonely'", q));
    }

    // ------------------------------------------------------------------ 8. sink offsets' owner

    @Test
    void resetDoesNotClaimAConnectorNameAndReadingNeedsTheOwner() {
        String name = "tb-prod-sink";
        assertEquals(0, writer2.oneLong("select pgque.sink_reset_offsets(?)", name), "nothing to forget");
        assertEquals(0, sql.oneLong("select count(*) from pgque.sink_offset_owner where connector = ?", name),
                "forgetting claims nothing");
        // The real sink commits: the name is its own.
        writer.exec("select pgque.sink_commit_offsets(?, array['t'], array[0], array[null]::bigint[], array[5::bigint])", name);
        assertEquals(1, writer.rows("select * from pgque.sink_offsets(?)", name).size());
        Sql.expectSqlState(DENIED, () -> writer2.exec("select * from pgque.sink_offsets(?)", name));
        Sql.expectSqlState(DENIED, () -> writer2.exec("select pgque.sink_reset_offsets(?)", name));
        Sql.expectSqlState(DENIED, () -> writer2.exec("select pgque.sink_set_offsets(?, array['t'], array[0], array[0::bigint])", name));
        assertEquals(1, admin.rows("select * from pgque.sink_offsets(?)", name).size(), "an admin may read");
    }

    // ------------------------------------------------------------------ 9. replay

    @Test
    void writersCannotReplayDeadLettersReadersAndAdminsCan() {
        String q = "tb_replay";
        sql.createQueue(q);
        sql.config(q, "max_retries", "0");
        sql.subscribe(q, "c");
        sql.send(q, "a");
        sql.send(q, "b");
        sql.tick(q);
        List<Msg> got = sql.receive(q, "c", 10);
        got.forEach(m -> sql.nack(m, "0 seconds", "poison"));
        sql.ack(got.get(0).batchId());
        long first = sql.oneLong("select min(dl_id) from pgque.dead_letter d join pgque.queue qq on qq.queue_id = d.dl_queue_id"
                + " where qq.queue_name = ?", q);
        Sql.expectSqlState(DENIED, () -> writer.exec("select pgque.dlq_replay(?)", first));
        Sql.expectSqlState(DENIED, () -> writer.exec("select pgque.dlq_replay_all(?)", q));
        assertNotNull(reader.oneLongOrNull("select pgque.dlq_replay(?)", first));
        assertEquals(1, admin.oneLong("select replayed from pgque.dlq_replay_all(?)", q));
    }

    // ------------------------------------------------------------------ 10. input checks

    @Test
    void offsetWritersShareOneCheckWithOneClearError() {
        for (String call : List.of(
                "select pgque.sink_commit_offsets('tb-checks', array['t'], array[-1], array[null]::bigint[], array[1::bigint])",
                "select pgque.sink_set_offsets('tb-checks', array['t'], array[-1], array[1::bigint])")) {
            SQLException e = Sql.expectSqlState("22023", () -> writer.exec(call));
            assertTrue(e.getMessage().contains("partitions and offsets not negative"), e.getMessage());
        }
        SQLException e = Sql.expectSqlState("22023", () -> writer.exec(
                "select pgque.sink_commit_offsets('tb-checks', array['t'], array[0], array[null]::bigint[], array[null]::bigint[])"));
        assertTrue(e.getMessage().contains("offsets not null"), e.getMessage());
        assertEquals(0, sql.oneLong("select count(*) from pgque.sink_offset where connector = 'tb-checks'"));
    }

    @Test
    void dlqInspectRefusesANegativeLimit() {
        sql.createQueue("tb_inspect");
        SQLException e = Sql.expectSqlState("22023", () -> reader.exec("select * from pgque.dlq_inspect('tb_inspect', -5)"));
        assertTrue(e.getMessage().contains("-5"), e.getMessage());
        assertEquals(0, reader.rows("select * from pgque.dlq_inspect('tb_inspect', 0)").size());
        reader.rows("select * from pgque.dlq_inspect('tb_inspect', null)");
    }

    // ------------------------------------------------------------------ 11. cooperative comeback

    @Test
    void aCooperativeConsumerComesBackWhereItStood() {
        String q = "tb_coop_back";
        sql.createQueue(q);
        reader.exec("select pgque.register_subconsumer(?, 'grp', 'w1', false)", q);
        sql.send(q, "before");
        sql.tick(q);
        long batch = reader.oneLong("select pgque.next_batch(?, 'grp', 'w1')", q);
        reader.ack(batch);
        assertEquals(1, reader.oneLong("select pgque.unregister_subconsumer(?, 'grp', 'w1')", q));
        assertEquals("normal", sql.one(String.class, "select sub_role from pgque.subscription s join pgque.consumer c"
                + " on c.co_id = s.sub_consumer join pgque.queue qq on qq.queue_id = s.sub_queue"
                + " where c.co_name = 'grp' and qq.queue_name = ?", q), "as in PgQue, the main is plain again");
        sql.send(q, "while away");
        sql.tick(q);
        // What the source's cooperative set-up calls: no conversion flag.
        reader.exec("select pgque.register_subconsumer(?, 'grp', 'w2', false)", q);
        List<Msg> got = reader.messages("select * from pgque.receive_coop(?, 'grp', 'w2', 100)", q);
        assertEquals(List.of("while away"), got.stream().map(Msg::payload).toList(), "resumed where it stood");

        // A plain consumer that never was cooperative still needs the explicit conversion.
        sql.subscribe(q, "plain");
        Sql.expectSqlState("55000", () -> reader.exec("select pgque.register_subconsumer(?, 'plain', 'w', false)", q));
    }

    @Test
    void aFormerCooperativeMainUsedPlainlyNeedsTheExplicitConversionAgain() {
        String q = "tb_coop_plain";
        sql.createQueue(q);
        reader.exec("select pgque.register_subconsumer(?, 'grp', 'w1')", q);
        reader.exec("select pgque.unregister_subconsumer(?, 'grp', 'w1')", q);
        sql.send(q, "x");
        sql.tick(q);
        assertEquals(1, reader.receive(q, "grp", 10).size(), "read as a plain consumer");
        Sql.expectSqlState("55000", () -> reader.exec("select pgque.register_subconsumer(?, 'grp', 'w1', false)", q));
    }
}

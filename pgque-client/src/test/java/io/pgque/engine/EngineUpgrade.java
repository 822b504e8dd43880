/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The upgrade path from an engine installed today: an older release's script (kept under
 * src/test/resources as it was released) installs and fills a database, with consumers of every
 * mode in the middle of their work, then this build's script upgrades it in place. Everything
 * stored survives and works, the work in progress carries on, every right the older grants gave
 * beyond the trust model of 0.4.0 is gone, and the upgraded schema is exactly a fresh install's:
 * no function an older engine had and this one has not, no parameter name it used, the same
 * grants.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class EngineUpgrade {

    /** Every object of the schema as text, for comparing two databases; per-queue tables left out. */
    private static final String SCHEMA = """
            select 'function ' || p.oid::regprocedure || '(' || pg_get_function_arguments(p.oid) || ') returns '
                   || coalesce(pg_get_function_result(p.oid), 'nothing (a procedure)') || ', ' || l.lanname
                   || ', volatility ' || p.provolatile::text
                   || ', definer ' || p.prosecdef || ', config ' || coalesce(array_to_string(p.proconfig, ' '), '-')
                   || ', acl ' || coalesce(array_to_string(p.proacl, ' '), '-') || ', source ' || md5(p.prosrc)
              from pg_proc p join pg_language l on l.oid = p.prolang
             where p.pronamespace = 'pgque'::regnamespace
            union all
            select 'relation ' || c.relname || ', kind ' || c.relkind::text || ', acl ' || coalesce(array_to_string(c.relacl, ' '), '-')
              from pg_class c
             where c.relnamespace = 'pgque'::regnamespace and c.relname !~ '^event_[0-9]'
            union all
            select 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                   || case when a.attnotnull then ' not null' else '' end
                   || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
              from pg_attribute a
              join pg_class c on c.oid = a.attrelid
              left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
             where c.relnamespace = 'pgque'::regnamespace and c.relname !~ '^event_[0-9]'
               and a.attnum > 0 and not a.attisdropped
            union all
            select 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
              from pg_constraint where connamespace = 'pgque'::regnamespace
            union all
            select 'view ' || c.relname || ' ' || pg_get_viewdef(c.oid)
              from pg_class c where c.relnamespace = 'pgque'::regnamespace and c.relkind = 'v'""";

    private Sql sql;
    private Sql fresh;
    private long deadBefore;
    private long openSlotBatch;
    private long openMemberBatch;

    /** The released version whose script the database starts with, e.g. {@code 0.3.4}. */
    abstract String oldVersion();

    @BeforeAll
    void installOldThenUpgrade() throws Exception {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("upgrade_" + oldVersion().replace('.', '_'));
        sql = new Sql(db.superuser());
        EngineScripts.run(db, EngineScripts.released(oldVersion()));
        assertEquals(oldVersion(), sql.one(String.class, "select pgque.version()"));
        // A queue in use: a plain consumer behind, a partitioned one, a cooperative group, dead
        // letters, idempotency keys and stored sink offsets.
        sql.createQueue("up");
        sql.subscribe("up", "plain");
        sql.exec("select pgque.subscribe_partitioned('up', 'slots', 2)");
        sql.exec("select pgque.register_subconsumer('up', 'grp', 'w1')");
        sql.config("up", "max_retries", "0");
        sql.exec("select * from pgque.send_idem('up', 't', 'idem-1', 'key-1')");
        sql.send("up", "before-1");
        sql.send("up", "before-2");
        sql.tick("up");
        List<Msg> got = sql.receive("up", "plain", 10);
        sql.nack(got.get(0), "0 seconds", "poison");
        sql.exec("select pgque.sink_commit_offsets('up-sink', array['t'], array[0], array[null]::bigint[], array[3::bigint])");
        deadBefore = sql.oneLong("select count(*) from pgque.dead_letter");

        // Work in progress in every mode, on a queue of its own: a resize draining at its seal, a
        // slot and a cooperative member each with a batch open.
        sql.createQueue("wip");
        sql.exec("select pgque.subscribe_partitioned('wip', 'rs', 2)");
        sql.exec("select pgque.register_subconsumer('wip', 'grp2', 'w1')");
        sql.exec("select pgque.send('wip', 't', 'r1', 'k1')");
        sql.exec("select pgque.send('wip', 't', 'r2', 'k2')");
        sql.tick("wip");
        sql.exec("select pgque.begin_resize('wip', 'rs', 3)");
        sql.exec("select pgque.send('wip', 't', 'r3', 'k3')");
        sql.tick("wip");
        sql.exec("select pgque.claim_slot('wip', 'rs', 0, 'old-worker', '1 hour')");
        openSlotBatch = sql.oneLong("select coalesce(max(batch_id), 0) from pgque.receive_partitioned('wip', 'rs', 0, 2, 'old-worker', 10)");
        openMemberBatch = sql.oneLong("select max(batch_id) from pgque.receive_coop('wip', 'grp2', 'w1', 10)");

        EngineScripts.run(db, EmbeddedPg.engineScript());
        fresh = new Sql(EmbeddedPg.newDatabase("upgrade_fresh").installEngine().superuser());
    }

    @Test
    void theUpgradeKeepsEverythingStoredAndItWorks() {
        assertNotEquals(oldVersion(), sql.one(String.class, "select pgque.version()"));
        // The open batch of the plain consumer is still open, and acks.
        List<Msg> again = sql.receive("up", "plain", 10);
        assertEquals(List.of("idem-1", "before-1", "before-2"), again.stream().map(Msg::payload).toList());
        assertEquals(1, sql.ack(again.get(0).batchId()));
        assertEquals(deadBefore, sql.oneLong("select count(*) from pgque.dead_letter"));
        assertEquals(1, sql.rows("select * from pgque.sink_offsets('up-sink')").size());
        assertTrue(sql.oneLong("select count(*) from pgque.idem") >= 1);
        sql.send("up", "after");
        sql.tick("up");
        assertEquals(List.of("after"), sql.drain("up", "plain").stream().map(Msg::payload).toList());
        sql.exec("select pgque.claim_slot('up', 'slots', 0, 'w')");
        sql.exec("select * from pgque.receive_partitioned('up', 'slots', 0, 2, 'w', 100)");
        sql.exec("select * from pgque.receive_coop('up', 'grp', 'w1', 100)");
        assertEquals("pgque", sql.one(String.class, "select role_prefix from pgque.engine_info"), "the shared role names");
    }

    /** The slot, the member and the resize that were mid-way at the upgrade finish their work. */
    @Test
    void workInProgressAtTheUpgradeCarriesOn() {
        assertTrue(openSlotBatch > 0, "slot 0 had a batch open");
        assertEquals(1, sql.oneLong("select pgque.ack_partitioned('wip', 'rs', 0, 2, 'old-worker', ?::bigint)", openSlotBatch));
        assertEquals(1, sql.ack(openMemberBatch));
        assertNull(sql.oneLongOrNull("select s.sub_last_tick from pgque.subscription s join pgque.consumer c"
                + " on c.co_id = s.sub_consumer where c.co_name = 'grp2.w1'"), "a member gives its window back");

        // The old slots drain up to the seal (a batch per tick), and no further.
        for (int slot = 0; slot < 2; slot++) {
            sql.exec("select pgque.claim_slot('wip', 'rs', ?, 'old-worker', '1 hour')", slot);
            for (int tick = 0; tick < 3; tick++) {
                sql.exec("select count(*) from pgque.receive_partitioned('wip', 'rs', ?, 2, 'old-worker', 100)", slot);
                sql.exec("select pgque.ack_partitioned('wip', 'rs', ?, 2, 'old-worker')", slot);
            }
        }
        assertTrue(sql.one(Boolean.class, "select pgque.resize_ready('wip', 'rs')"));
        assertEquals(3, sql.oneLong("select pgque.complete_resize('wip', 'rs')"));
        Set<String> afterSeal = new TreeSet<>();
        for (int slot = 0; slot < 3; slot++) {
            sql.exec("select pgque.claim_slot('wip', 'rs', ?, 'new-worker', '1 hour')", slot);
            afterSeal.addAll(sql.messages("select * from pgque.receive_partitioned('wip', 'rs', ?, 3, 'new-worker', 100)", slot)
                    .stream().map(Msg::payload).filter(p -> p.startsWith("r")).toList());
        }
        assertEquals(Set.of("r3"), afterSeal, "what was sent after the seal is the new slots'");
    }

    @Test
    void rightsOfTheOlderGrantsBeyondTheTrustModelAreGone() {
        assertEquals(List.of(), sql.rows("""
                select r.rolname, c.relname, p.privilege_type
                  from pg_class c
                 cross join (values ('pgque_admin'), ('pgque_reader'), ('pgque_writer'), ('pgque_ticker')) r(rolname)
                 cross join (values ('INSERT'), ('UPDATE'), ('DELETE'), ('TRUNCATE'), ('REFERENCES'), ('TRIGGER')) p(privilege_type)
                 where c.relnamespace = 'pgque'::regnamespace and c.relkind in ('r', 'p', 'v')
                   and has_table_privilege(r.rolname, c.oid, p.privilege_type)"""));
        assertFalse(sql.one(Boolean.class, "select has_function_privilege('pgque_writer', 'pgque.dlq_replay(bigint)', 'EXECUTE')"));
        assertTrue(sql.one(Boolean.class, "select has_function_privilege('pgque_reader', 'pgque.dlq_replay(bigint)', 'EXECUTE')"));
        assertTrue(sql.one(Boolean.class, "select has_function_privilege('pgque_ticker', 'pgque.ticker_round(interval)', 'EXECUTE')"));
        assertEquals("a", sql.one(String.class, "select confdeltype::text from pg_constraint"
                + " where conname = 'dead_letter_dl_consumer_id_fkey'"), "dead letters no longer cascade away");
        assertEquals(1, sql.oneLong("select count(*) from pg_constraint where conname = 'queue_names_from_id'"));
    }

    /**
     * Functions (with their parameter names, results, grants and bodies), tables, columns,
     * constraints and views: the upgraded database has exactly a fresh install's, so an internal
     * function that this version renamed or removed is gone.
     */
    @Test
    void theUpgradedSchemaIsAFreshInstallsSchema() {
        Set<String> upgraded = schema(sql);
        Set<String> installed = schema(fresh);
        assertEquals(Set.of(), difference(upgraded, installed), "left over from " + oldVersion() + " (or changed by the upgrade)");
        assertEquals(Set.of(), difference(installed, upgraded), "missing after the upgrade from " + oldVersion());
    }

    @Test
    void runningTheNewScriptAgainChangesNothing() throws Exception {
        long queues = sql.oneLong("select count(*) from pgque.queue");
        Set<String> before = schema(sql);
        try (Connection c = sql.connect(); Statement s = c.createStatement()) {
            s.execute(EmbeddedPg.engineScript());
        }
        assertEquals(queues, sql.oneLong("select count(*) from pgque.queue"));
        assertEquals(before, schema(sql));
    }

    private static Set<String> schema(Sql db) {
        return db.rows(SCHEMA).stream().map(Map::values).map(v -> (String) v.iterator().next())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> d = new TreeSet<>(a);
        d.removeAll(b);
        return d;
    }
}

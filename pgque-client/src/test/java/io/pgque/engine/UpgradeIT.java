/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The upgrade path from the engine installed today: engine 0.3.4's script (as released, kept
 * under src/test/resources) installs and fills a database, then this build's script upgrades it
 * in place. Everything stored survives and works; every right the older grants gave beyond the
 * trust model of 0.4.0 is gone.
 */
class UpgradeIT {

    private static final String OLD_VERSION = "0.3.4";
    private static Sql sql;
    private static long deadBefore;

    @BeforeAll
    static void installOldThenUpgrade() throws Exception {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("upgrade");
        sql = new Sql(db.superuser());
        run(db, oldScript());
        assertEquals(OLD_VERSION, sql.one(String.class, "select pgque.version()"));
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

        run(db, EmbeddedPg.engineScript());
    }

    private static void run(EmbeddedPg.TestDatabase db, String script) throws SQLException {
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute(script);
        }
    }

    private static String oldScript() {
        try (InputStream in = UpgradeIT.class.getResourceAsStream("pgque-" + OLD_VERSION + ".sql")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theUpgradeKeepsEverythingStoredAndItWorks() {
        assertNotEquals(OLD_VERSION, sql.one(String.class, "select pgque.version()"));
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

    @Test
    void runningTheNewScriptAgainChangesNothing() throws Exception {
        long queues = sql.oneLong("select count(*) from pgque.queue");
        try (Connection c = sql.connect(); Statement s = c.createStatement()) {
            s.execute(EmbeddedPg.engineScript());
        }
        assertEquals(queues, sql.oneLong("select count(*) from pgque.queue"));
    }
}

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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 47 item 6: a login with nothing but CONNECT on the database cannot stall the ticker. It
 * may take any advisory lock it likes, and hold it; the engine's mutual exclusion uses rows of
 * engine tables that only the engine's own functions can lock, and a ticker never waits behind a
 * session that is not the engine's. Each call that could hang runs under a statement timeout, so
 * a regression fails the test instead of hanging it.
 */
class StrangerLocksIT {

    private static final String STRANGER = "sl_stranger";
    private static Sql sql;
    private static EmbeddedPg.TestDatabase db;

    @BeforeAll
    static void install() {
        db = EmbeddedPg.newDatabase("stranger_locks").installEngine();
        sql = new Sql(db.superuser());
        sql.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + STRANGER + "') then"
                + " create role " + STRANGER + " login; end if; end $$");
        sql.exec("grant connect on database " + db.name() + " to " + STRANGER);
    }

    @Test
    void advisoryLocksOfAStrangerStallNoTicker() throws Exception {
        String q = "sl_q";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long queueId = sql.oneLong("select queue_id from pgque.queue where queue_name = ?", q);
        try (Connection stranger = db.as(STRANGER).getConnection(); Statement st = stranger.createStatement()) {
            // Every key the engine ever used, held for the whole test by a session that is not the engine's.
            st.execute("select pg_advisory_lock(1885435252, " + queueId + ")");
            st.execute("select pg_advisory_lock(hashtext('pgque.ticker_round'))");
            st.execute("select pg_advisory_lock(" + 0x7067717565L + ")");

            sql.send(q, "a");
            long before = lastTick(q);
            assertNotNull(ticking("select pgque.ticker_round('1 millisecond')"), "the round runs");
            assertTrue(lastTick(q) > before, "and ticks the queue with a waiting event");
            sql.send(q, "b");
            ticking("select pgque.force_next_tick('" + q + "')");
            assertNotNull(ticking("select pgque.ticker('" + q + "')"), "ticker(queue) ticks");
            sql.send(q, "c");
            ticking("select pgque.force_next_tick('" + q + "')");
            before = lastTick(q);
            assertTrue(ticking("select pgque.ticker()") >= 1, "ticker() ticks");
            assertTrue(lastTick(q) > before);
            assertEquals(3, sql.drain(q, "c").size());
        }
    }

    @Test
    void aStrangerCannotLockTheEnginesRows() throws Exception {
        try (Connection stranger = db.as(STRANGER).getConnection(); Statement st = stranger.createStatement()) {
            for (String table : new String[] {"pgque.queue", "pgque.config", "pgque.tick_guard", "pgque.subscription"}) {
                SQLException denied = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                        () -> st.execute("select 1 from " + table + " for update skip locked"));
                assertEquals("42501", denied.getSQLState(), table + ": " + denied.getMessage());
            }
        }
    }

    @Test
    void aTickerSkipsAQueueAnotherTickerHoldsAndWaitsForNone() throws Exception {
        // Two tickers of the engine: the second skips the queue the first is ticking rather
        // than queue behind it; the next round ticks it.
        String q = "sl_two";
        sql.createQueue(q);
        sql.send(q, "x");
        try (Connection first = sql.connect(); Statement st = first.createStatement()) {
            first.setAutoCommit(false);
            st.execute("select pgque.force_next_tick('" + q + "')");
            st.execute("select pgque.ticker('" + q + "')");
            assertEquals(null, ticking("select pgque.ticker('" + q + "')"), "the queue is being ticked: skipped");
            first.commit();
        }
        sql.send(q, "y");
        sql.exec("select pgque.force_next_tick(?)", q);
        assertTrue(ticking("select pgque.ticker('" + q + "')") != null, "the next call ticks");
    }

    private static long lastTick(String q) {
        return sql.oneLong("select max(t.tick_id) from pgque.tick t join pgque.queue qq on qq.queue_id = t.tick_queue"
                + " where qq.queue_name = ?", q);
    }

    /** Runs a ticking call with a statement timeout: a call that waits fails instead of hanging. */
    private static Long ticking(String call) throws SQLException {
        try (Connection c = sql.connect(); Statement st = c.createStatement()) {
            st.execute("set statement_timeout = '3s'");
            try (var rs = st.executeQuery(call)) {
                rs.next();
                long v = rs.getLong(1);
                return rs.wasNull() ? null : v;
            }
        }
    }
}

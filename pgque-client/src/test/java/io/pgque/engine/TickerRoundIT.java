/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * sql-reference "Ticking": {@code ticker_round(period)} ticks a queue whose events have waited a
 * period whatever its thresholds, catches events whose transaction committed after the last
 * tick counted them, and lets one round run at a time across sessions.
 */
class TickerRoundIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("tickerround").installEngine().superuser());
    }

    /** Thresholds no plain ticker() call reaches in a test: only the period can tick. */
    private static void highThresholds(String q) {
        sql.config(q, "ticker_max_lag", "1 hour");
        sql.config(q, "ticker_max_count", "1000000");
    }

    private static long lastTick(String q) {
        return sql.oneLong("select max(t.tick_id) from pgque.tick t join pgque.queue q on q.queue_id = t.tick_queue "
                + "where q.queue_name = ?", q);
    }

    private static Long round(Connection c, String period) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select pgque.ticker_round(?::interval)")) {
            ps.setString(1, period);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long value = rs.getLong(1);
                return rs.wasNull() ? null : value;
            }
        }
    }

    /** Runs rounds on {@code c} until {@code q} has a tick after {@code after}; fails after 30 s. */
    private static void roundsUntilTicked(Connection c, String period, String q, long after) {
        assertTrue(Sql.await(Duration.ofSeconds(30), Duration.ofMillis(20), () -> {
            try {
                round(c, period);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return lastTick(q) > after;
        }), "no tick of " + q + " after " + after + " within 30 s");
    }

    @Test
    void pendingEventsAreTickedAfterThePeriodWhateverTheQueueThresholds() throws Exception {
        String q = "period";
        sql.createQueue(q);
        highThresholds(q);
        sql.subscribe(q, "c");
        long before = lastTick(q);
        sql.send(q, "a");
        try (Connection c = sql.connect()) {
            c.setAutoCommit(true);
            roundsUntilTicked(c, "50 milliseconds", q, before);
        }
        assertEquals(1, sql.receive(q, "c", 10).size(), "the event is in the batch the round closed");
        assertEquals(0L, sql.oneLong("select pgque.ticker_round('1 hour')"), "nothing more is due");
    }

    @Test
    void eventsCommittedAfterTheTickThatCountedThemGetATickOfTheirOwn() throws Exception {
        String q = "latecommit";
        sql.createQueue(q);
        highThresholds(q);
        sql.subscribe(q, "c");
        try (Connection producer = sql.connect(); Connection ticker = sql.connect()) {
            ticker.setAutoCommit(true);
            producer.setAutoCommit(false);
            try (Statement s = producer.createStatement()) {
                s.execute("select pgque.send('latecommit', 'late')");
            }
            // The round counts the event but cannot see it: its transaction is still open.
            roundsUntilTicked(ticker, "10 milliseconds", q, lastTick(q));
            producer.commit();
            long after = lastTick(q);
            // One more tick, once the event is visible.
            roundsUntilTicked(ticker, "10 milliseconds", q, after);
        }
        assertEquals(1, sql.drain(q, "c").size(), "the late event is delivered");
        long settled = lastTick(q);
        sql.exec("select pgque.ticker_round('1 microsecond')");
        assertEquals(settled, lastTick(q), "no tick without new events");
    }

    @Test
    void aRoundThatFindsAnotherRunningDoesNothing() throws Exception {
        String q = "shared";
        sql.createQueue(q);
        sql.send(q, "a");
        try (Connection first = sql.connect(); Connection second = sql.connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(true);
            round(first, "1 millisecond");
            // The first round's transaction is still open, so it still holds the round.
            assertNull(round(second, "1 millisecond"), "a second round at the same time returns NULL");
            first.commit();
            assertTrue(round(second, "1 millisecond") != null, "once the first is over, the next round runs");
        }
    }

    /**
     * The connector's tasks each run a round every period, and all but the first after a tick
     * find nothing due: such a round must write nothing (no transaction id, so no commit to
     * flush) and must not wait for, nor be refused by, a round another session holds. A held
     * event that falls due is still moved by the next round, whatever the period.
     */
    @Test
    void aRoundWithNothingDueWritesNothingAndStillMovesDueHeldEvents() throws Exception {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("tickerroundquiet").installEngine();
        Sql quiet = new Sql(db.superuser());
        String q = "quiet";
        quiet.createQueue(q);
        quiet.config(q, "ticker_max_lag", "1 hour");
        quiet.config(q, "ticker_max_count", "1000000");
        quiet.subscribe(q, "c");
        quiet.send(q, "a");
        quiet.exec("select pgque.ticker_round('1 microsecond')");
        quiet.send(q, "b"); // waiting, but neither the period nor a threshold is reached
        long ticked = quiet.oneLong("select max(tick_id) from pgque.tick");
        try (Connection holder = quiet.connect(); Connection round = quiet.connect()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("select pgque.tick_lock(0, false)"); // another session's round, still open
            }
            round.setAutoCommit(false);
            assertEquals(0L, round(round, "1 hour"), "nothing due: 0, not the NULL of a round refused");
            try (Statement s = round.createStatement(); ResultSet rs = s.executeQuery(
                    "select pg_current_xact_id_if_assigned() is null")) {
                rs.next();
                assertTrue(rs.getBoolean(1), "the round took no transaction id: it wrote and locked nothing");
            }
            round.commit();
            holder.commit();
        }
        assertEquals(ticked, quiet.oneLong("select max(tick_id) from pgque.tick"), "no tick");

        quiet.exec("select pgque.send_at(?, 'later', 'held'::text, clock_timestamp() + interval '300 milliseconds', 'k')", q);
        assertEquals(1L, quiet.oneLong("select count(*) from pgque.delayed_events where de_queue_name = ?", q));
        assertTrue(Sql.await(Duration.ofSeconds(30), Duration.ofMillis(50), () -> {
            quiet.exec("select pgque.ticker_round('1 hour')");
            return quiet.oneLong("select count(*) from pgque.delayed_events where de_queue_name = ?", q) == 0;
        }), "a round with a one-hour period moves the held event once it is due");
    }
}

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
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ENGINE.md 1.4, the ticker's decision, with PgQ's two first-tick details (issue 15): the event
 * count reads the sequence's last_value whatever is_called says, and an idle queue whose last
 * tick has no earlier one is ticked without a spacing check. Every statement commits on its own
 * (see {@link Sql}).
 */
class TickerRulesIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("tickerrules").installEngine().superuser());
    }

    private static Long ticker(String queue) {
        return sql.oneLongOrNull("select pgque.ticker(?::text)", queue);
    }

    private static long ticks(String queue) {
        return sql.oneLong("select count(*) from pgque.tick t join pgque.queue q on q.queue_id = t.tick_queue"
                + " where q.queue_name = ?", queue);
    }

    @Test
    void pgqueTutorialSequenceDeliversTheFirstEventAfterOneTickerCall() {
        // create_queue('q'); subscribe('q','c'); send('q', ...); ticker(); receive('q','c',10)
        assertEquals(1, sql.oneLong("select pgque.create_queue('tut_q')"));
        assertEquals(1, sql.oneLong("select pgque.subscribe('tut_q', 'c')"));
        long id = sql.oneLong("select pgque.send('tut_q', '{\"hello\": \"world\"}'::jsonb)");
        assertTrue(sql.oneLong("select pgque.ticker()") >= 1, "the all-queues ticker ticked the fresh queue");
        List<Msg> got = sql.messages("select * from pgque.receive('tut_q', 'c', 10)");
        assertEquals(List.of(id), got.stream().map(Msg::msgId).toList());
        assertEquals("{\"hello\": \"world\"}", got.get(0).payload());
    }

    @Test
    void tickerTicksAQueueThatHasOnlyItsCreationTick() {
        sql.createQueue("fresh_x");
        assertEquals(1, ticks("fresh_x"));
        Long tick = ticker("fresh_x");
        assertNotNull(tick, "create_queue('x'); select ticker('x') ticks");
        assertEquals(2, ticks("fresh_x"));
        // from now on the idle spacing rule applies again: the next call, right away, does not tick
        assertNull(ticker("fresh_x"), "idle spacing after the second tick");
        assertEquals(2, ticks("fresh_x"));
    }

    @Test
    void theFirstEventOfAFreshQueueIsNotCountedAsNewButLaterOnesAre() {
        String q = "count_q";
        sql.createQueue(q);
        assertEquals(1, sql.oneLong("select pgque.seq_getval(queue_event_seq) from pgque.queue where queue_name = ?", q),
                "a fresh sequence reads 1 (is_called is ignored)");
        sql.send(q, "first");
        assertEquals(1, sql.oneLong("select pgque.seq_getval(queue_event_seq) from pgque.queue where queue_name = ?", q));
        assertEquals(0, sql.oneLong("select ev_new from pgque.get_queue_info(?)", q), "the very first event is not new");
        assertNotNull(ticker(q), "idle branch, no earlier tick: ticks");

        sql.send(q, "second");
        assertEquals(1, sql.oneLong("select ev_new from pgque.get_queue_info(?)", q));
        // one new event, below ticker_max_count (500) and within ticker_max_lag (3 s): no tick
        assertNull(ticker(q), "a busy queue still waits for max_count or max_lag");
        sql.config(q, "ticker_max_count", "1");
        assertNotNull(ticker(q), "max_count reached");

        sql.subscribe(q, "late");
        assertTrue(sql.receive(q, "late", 10).isEmpty(), "a new subscription starts at the latest tick");
    }

    @Test
    void anIdleQueueWithTwoTicksKeepsItsSpacing() {
        String q = "idle_q";
        sql.createQueue(q);
        assertNotNull(ticker(q));
        sql.config(q, "ticker_max_lag", "1 hour");
        assertNull(ticker(q), "lag below max_lag/2");
        // with a tiny max_lag the rule left is "lag >= 2 x the gap between the last two ticks"
        sql.config(q, "ticker_max_lag", "1 millisecond");
        assertTrue(Sql.await(Duration.ofSeconds(30), Duration.ofMillis(20), () -> ticker(q) != null),
                "idle tick once lag >= 2 x previous gap");
    }

    /**
     * Two tickers of one queue at once (say pg_cron's loop and a connector's ticker duty): the
     * second neither waits for the first nor ticks again; it skips the queue the first is ticking
     * (StrangerLocksIT: no ticker waits behind another session).
     */
    @Test
    void concurrentTickersOfOneQueueMakeOneTick() throws Exception {
        String q = "race_q";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long id = sql.send(q, "x");
        long before = ticks(q);
        try (Connection first = sql.connect(); Connection second = sql.connect()) {
            first.setAutoCommit(false);
            sql.exec("select pgque.force_next_tick(?)", q);
            Long firstTick = tickIn(first, q);
            assertNotNull(firstTick, "the first ticker ticks");
            try (Statement st = second.createStatement()) {
                st.execute("set statement_timeout = '5s'");
            }
            assertNull(tickIn(second, q), "the second ticker skips the queue the first is ticking, at once");
            first.commit();
            assertNull(tickIn(second, q), "and once the first committed, sees its tick and makes none");
        }
        assertEquals(before + 1, ticks(q));
        assertEquals(List.of(id), sql.drain(q, "c").stream().map(Msg::msgId).toList());
    }

    private static Long tickIn(Connection c, String queue) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("select pgque.ticker(?::text)")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long v = rs.getLong(1);
                return rs.wasNull() ? null : v;
            }
        }
    }
}

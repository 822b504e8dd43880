/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ticker;

import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Await;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Issue 43: a shorter ticker interval buys latency only while events wait. With the duty at its
 * shortest interval, a queue without events gets no tick (its own idle schedule, set to an hour
 * here, is the engine's), and the first event sent gets one without waiting for that schedule.
 */
class TickerDutyIdleIT {

    private static final Duration SHORTEST = Duration.ofMillis(10);

    @Test
    void theDutyAtItsShortestIntervalTicksNoIdleQueueAndTicksAnEventAtOnce() throws Exception {
        DataSource db = EmbeddedPg.newDatabase("dutyidle").installEngine().superuser();
        try (Connection c = db.getConnection()) {
            // Counts the duty's rounds (pg_stat_user_functions) on the connections it opens next.
            exec(c, "do $$ begin execute format('alter database %I set track_functions = pl',"
                    + " current_database()); end $$");
            exec(c, "select pgque.create_queue('idle_q')");
            exec(c, "select pgque.set_queue_config('idle_q', 'ticker_max_lag', '1 hour')");
            exec(c, "select pgque.set_queue_config('idle_q', 'ticker_idle_period', '1 hour')");
            // A fresh queue's first two ticks come at once whatever the schedule; after them an idle queue waits.
            exec(c, "select pgque.ticker('idle_q')");
            exec(c, "select pgque.ticker('idle_q')");
            long settled = ticks(c);
            try (TickerDuty duty = TickerDuty.start(db, "idle-duty", SHORTEST, Duration.ofMinutes(10),
                    Duration.ofMinutes(10))) {
                // Absence can only be watched over a span: until the duty has run 300 rounds.
                Await.until("300 rounds of the ticker duty", Duration.ofSeconds(120), () -> rounds(c) >= 300);
                assertEquals(settled, ticks(c), "an idle queue got a tick from the duty");
                exec(c, "select pgque.send('idle_q', '{\"n\": 1}'::jsonb)");
                Await.until("the duty to tick the queue's event (its own schedule would wait an hour)",
                        Duration.ofSeconds(30), SHORTEST, () -> ticks(c) > settled);
            }
        }
    }

    private static long ticks(Connection c) {
        return count(c, "select count(*) from pgque.tick t join pgque.queue q"
                + " on q.queue_id = t.tick_queue where q.queue_name = 'idle_q'");
    }

    private static long rounds(Connection c) {
        return count(c, "select coalesce(sum(calls), 0) from pg_stat_user_functions"
                + " where schemaname = 'pgque' and funcname = 'ticker_round'");
    }

    private static long count(Connection c, String sql) {
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        }
    }
}

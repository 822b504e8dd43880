/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.pgque.testing.SqlValues.asLong;
import static io.pgque.testing.SqlValues.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ENGINE.md 1.12 "Observability": get_queue_info and get_consumer_info columns and values. */
class InfoIT {

    private static final List<String> QUEUE_COLUMNS = List.of("queue_name", "queue_ntables", "queue_cur_table",
            "queue_rotation_period", "queue_switch_time", "queue_external_ticker", "queue_ticker_paused",
            "queue_ticker_max_count", "queue_ticker_max_lag", "queue_ticker_idle_period", "ticker_lag", "ev_per_sec",
            "ev_new", "last_tick_id");
    private static final List<String> CONSUMER_COLUMNS = List.of("queue_name", "consumer_name", "lag", "last_seen",
            "last_tick", "current_batch", "next_tick", "pending_events");

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("info").installEngine().superuser());
    }

    private static Map<String, Object> queueInfo(String q) {
        List<Map<String, Object>> rows = sql.rows("select * from pgque.get_queue_info(?)", q);
        assertEquals(1, rows.size(), "one row for " + q);
        return rows.get(0);
    }

    private static Map<String, Object> consumerInfo(String q, String c) {
        List<Map<String, Object>> rows = sql.rows("select * from pgque.get_consumer_info(?, ?)", q, c);
        assertEquals(1, rows.size(), "one row for " + q + "/" + c);
        return rows.get(0);
    }

    @Test
    void queueInfoHasTheDocumentedColumnsAndSensibleValues() {
        String q = "info_q";
        sql.createQueue(q);
        long tick = sql.tick(q);

        Map<String, Object> info = queueInfo(q);
        assertEquals(QUEUE_COLUMNS, new ArrayList<>(info.keySet()), "documented columns, in order");
        assertEquals(q, info.get("queue_name"));
        assertEquals(3L, asLong(info.get("queue_ntables")));
        long cur = asLong(info.get("queue_cur_table"));
        assertTrue(cur >= 0 && cur < 3);
        assertEquals(2 * 3600.0, seconds(info.get("queue_rotation_period")), "default rotation period 2 hours");
        assertNotNull(info.get("queue_switch_time"));
        assertEquals(false, info.get("queue_external_ticker"));
        assertEquals(false, info.get("queue_ticker_paused"));
        assertEquals(500L, asLong(info.get("queue_ticker_max_count")));
        assertEquals(3.0, seconds(info.get("queue_ticker_max_lag")));
        assertEquals(60.0, seconds(info.get("queue_ticker_idle_period")));
        double lag = seconds(info.get("ticker_lag"));
        assertTrue(lag >= 0 && lag < 60, "ticker_lag is the age of the last tick: " + lag);
        assertTrue(asLong(info.get("ev_new")) >= 0);
        assertEquals(tick, asLong(info.get("last_tick_id")));

        for (int i = 0; i < 5; i++) {
            sql.send(q, "e" + i);
        }
        // The forced tick drew ids (PgQ's rule), so the queue's first event is counted like any other.
        assertEquals(5, asLong(queueInfo(q).get("ev_new")), "ev_new counts events since the last tick");

        sql.config(q, "ticker_max_count", "42");
        sql.config(q, "rotation_period", "5 minutes");
        Map<String, Object> changed = queueInfo(q);
        assertEquals(42L, asLong(changed.get("queue_ticker_max_count")));
        assertEquals(300.0, seconds(changed.get("queue_rotation_period")));

        assertTrue(sql.rows("select * from pgque.get_queue_info()").stream().anyMatch(r -> q.equals(r.get("queue_name"))),
                "get_queue_info() lists every queue");
    }

    @Test
    void consumerInfoTracksCursorBatchAndPendingEvents() {
        String q = "info_c";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long start = asLong(consumerInfo(q, "c").get("last_tick"));
        for (int i = 0; i < 10; i++) {
            sql.send(q, "e" + i);
        }
        long tick = sql.tick(q);

        Map<String, Object> before = consumerInfo(q, "c");
        assertEquals(CONSUMER_COLUMNS, new ArrayList<>(before.keySet()), "documented columns, in order");
        assertEquals(q, before.get("queue_name"));
        assertEquals("c", before.get("consumer_name"));
        // PgQ's estimate from the ticks' sequence readings: a fresh queue's very first event is not
        // counted, and the ids the forced tick drew (ticker_max_count * 2 + 1000) are.
        assertEquals(9 + 500 * 2 + 1000, asLong(before.get("pending_events")),
                "pending_events: events sent, less the first, plus the forced tick's ids: " + before);
        assertEquals(9, sql.oneLong("select pending_events from pgque.consumer_stats() where queue_name = ? and consumer_name = 'c'", q),
                "this engine's own figure leaves the forced tick's ids out");
        assertEquals(start, asLong(before.get("last_tick")));
        assertNull(before.get("current_batch"));
        assertNull(before.get("next_tick"));
        assertTrue(seconds(before.get("lag")) >= 0);
        assertTrue(seconds(before.get("last_seen")) >= 0);

        List<Msg> got = sql.receive(q, "c", 100);
        assertEquals(10, got.size());
        Map<String, Object> during = consumerInfo(q, "c");
        assertEquals(got.get(0).batchId(), asLong(during.get("current_batch")));
        assertEquals(tick, asLong(during.get("next_tick")));

        assertEquals(1, sql.ack(got.get(0).batchId()));
        Map<String, Object> after = consumerInfo(q, "c");
        assertEquals(0L, asLong(after.get("pending_events")), "nothing pending after drain and ack");
        assertEquals(tick, asLong(after.get("last_tick")));
        assertNull(after.get("current_batch"));
        assertNull(after.get("next_tick"));

        sql.subscribe(q, "d");
        List<Map<String, Object>> all = sql.rows("select * from pgque.get_consumer_info(?)", q);
        assertEquals(List.of("c", "d"), all.stream().map(r -> (String) r.get("consumer_name")).sorted().toList());
        assertFalse(sql.rows("select * from pgque.get_consumer_info()").isEmpty());
    }
}

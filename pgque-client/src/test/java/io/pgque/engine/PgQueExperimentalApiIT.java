/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rest of PgQue's experimental surface, as code written for PgQue calls it: the config API
 * ({@code create_queue(name, options)}, {@code pause_queue}, {@code resume_queue}),
 * {@code event_dead}, {@code prime_tick}, and the observability functions
 * ({@code queue_health}, {@code otel_metrics}, {@code stuck_consumers}, {@code in_flight},
 * {@code throughput}, {@code error_rate}); good input, bad input, and who may call them.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PgQueExperimentalApiIT {

    private static final String DENIED = "42501";

    private static Sql sql;
    private static Sql admin;
    private static Sql reader;
    private static Sql writer;

    @BeforeAll
    static void installEngineAndRoles() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("xapi").installEngine();
        sql = new Sql(db.superuser());
        admin = sql.login(db, "xapi_admin", "pgque_admin");
        reader = sql.login(db, "xapi_reader", "pgque_reader");
        writer = sql.login(db, "xapi_writer", "pgque_writer");
    }

    /**
     * A queue whose first event has been ticked: a fresh event sequence reads 1 before and after
     * its first value, so PgQ's arithmetic never counts a queue's first event.
     */
    private static void createWarmQueue(String q) {
        sql.createQueue(q);
        sql.send(q, "warm-up");
        sql.exec("select pgque.force_tick(?)", q);
        sql.tick(q);
    }

    private static Map<String, Object> queueRow(String q) {
        return sql.rows("select queue_max_retries, queue_rotation_period::text as rotation, queue_ticker_max_count,"
                + " queue_ticker_paused from pgque.queue where queue_name = ?", q).get(0);
    }

    // ------------------------------------------------------------------ the config API

    @Test
    void createQueueWithOptionsSetsThemAllOrNothing() {
        assertEquals(1, admin.oneLong("select pgque.create_queue('xq_opts', ?::jsonb)",
                "{\"max_retries\": 2, \"rotation_period\": \"30 seconds\", \"ticker_max_count\": 10}"));
        assertEquals(Map.of("queue_max_retries", 2, "rotation", "00:00:30", "queue_ticker_max_count", 10,
                "queue_ticker_paused", false), queueRow("xq_opts"));
        // PgQue applies the options to a queue that exists too; a JSON null resets one
        assertEquals(0, admin.oneLong("select pgque.create_queue('xq_opts', '{\"max_retries\": 4, \"ticker_max_count\": null}')"));
        assertEquals(4, queueRow("xq_opts").get("queue_max_retries"));
        assertEquals(500, queueRow("xq_opts").get("queue_ticker_max_count"), "the default again");
        assertEquals(1, admin.oneLong("select pgque.create_queue('xq_plain', null::jsonb)"), "no options");

        // An unknown key or a bad value: nothing is created
        Sql.expectSqlState("22023", () -> admin.exec("select pgque.create_queue('xq_bad_key', '{\"max_retries\": 1, \"nope\": 1}')"));
        Sql.expectSqlState("22023", () -> admin.exec("select pgque.create_queue('xq_bad_value', '{\"max_retries\": -1}')"));
        Sql.expectSqlState("22023", () -> admin.exec("select pgque.create_queue('xq_bad_type', '[1, 2]')"));
        assertEquals(0, sql.oneLong("select count(*) from pgque.queue where queue_name like 'xq_bad%'"));
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.create_queue('xq_r', '{}')"));
        Sql.expectSqlState(DENIED, () -> writer.exec("select pgque.create_queue('xq_w', '{}')"));
    }

    @Test
    void pauseAndResumeQueueStopAndRestartItsTicks() {
        String q = "xq_pause";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        admin.exec("select pgque.pause_queue(?)", q);
        assertEquals(true, queueRow(q).get("queue_ticker_paused"));
        sql.send(q, "held");
        Sql.expectSqlState("55000", () -> sql.exec("select pgque.ticker(?::text)", q));
        assertEquals(List.of(), sql.receive(q, "c", 10), "no tick, no batch");
        admin.exec("select pgque.resume_queue(?)", q);
        assertEquals(false, queueRow(q).get("queue_ticker_paused"));
        sql.tick(q);
        assertEquals(List.of("held"), sql.drain(q, "c").stream().map(Msg::payload).toList());
        Sql.expectSqlState("PQ001", () -> admin.exec("select pgque.pause_queue('xq_no_such')"));
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.pause_queue(?)", q));
        Sql.expectSqlState(DENIED, () -> writer.exec("select pgque.resume_queue(?)", q));
    }

    @Test
    void primeTickIsPgQuesNameForForceTick() {
        String q = "xq_prime";
        sql.createQueue(q);
        sql.exec("select pgque.ticker(?::text)", q);
        long last = admin.oneLong("select pgque.prime_tick(?)", q);
        long tick = sql.oneLong("select pgque.ticker(?::text)", q);
        assertTrue(tick > last, "the next ticker() ticks");
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.prime_tick(?)", q));
    }

    // ------------------------------------------------------------------ event_dead

    @Test
    void eventDeadCopiesTheEventFromTheBatchNotFromTheCaller() {
        String q = "xq_dead";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long first = sql.send(q, "t", "real payload");
        sql.send(q, "t", "second");
        sql.tick(q);
        long batch = sql.oneLong("select pgque.next_batch(?, 'c')", q);
        // Forged copies (type, payload, extras) are not what the dead letter gets; the bigint
        // txid of get_batch_events is taken as it comes.
        assertEquals(1, admin.oneLong("select pgque.event_dead(?, ?, 'poison', now(), 1::bigint, 0, 'forged', 'forged',"
                + " 'forged', 'forged', 'forged', 'forged')", batch, first));
        assertEquals(1, admin.oneLong("select pgque.event_dead(?, ?, 'again', now(), null::xid8, 0, 'x', 'x')", batch, first),
                "the same event twice is one dead letter");
        List<Map<String, Object>> dead = sql.rows("select dl_reason, ev_id, ev_type, ev_data, ev_extra1, ev_txid is not null as txid"
                + " from pgque.dlq_inspect(?)", q);
        assertEquals(1, dead.size());
        assertEquals("poison", dead.get(0).get("dl_reason"));
        assertEquals(first, ((Number) dead.get(0).get("ev_id")).longValue());
        assertEquals("t", dead.get(0).get("ev_type"));
        assertEquals("real payload", dead.get(0).get("ev_data"));
        assertEquals(null, dead.get(0).get("ev_extra1"));
        assertEquals(true, dead.get(0).get("txid"), "the event's own transaction id");
        // The batch stays open: the rest is read and acked as usual
        assertEquals(List.of("real payload", "second"), sql.messages("select * from pgque.read_batch(?)", batch)
                .stream().map(Msg::payload).toList());
        assertEquals(1, sql.ack(batch));

        Sql.expectSqlState("PQ003", () -> admin.exec("select pgque.event_dead(424242, 1, 'r', now(), null::xid8, 0, 't', 'd')"));
        sql.send(q, "third");
        sql.tick(q);
        long next = sql.oneLong("select pgque.next_batch(?, 'c')", q);
        Sql.expectSqlState("PQ008", () -> admin.exec("select pgque.event_dead(?, ?, 'r', now(), null::xid8, 0, 't', 'd')",
                next, first));
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.event_dead(?, ?, 'r', now(), null::xid8, 0, 't', 'd')",
                next, first));
        Sql.expectSqlState(DENIED, () -> writer.exec("select pgque.event_dead(?, ?, 'r', now(), null::xid8, 0, 't', 'd')",
                next, first));
        sql.ack(next);
    }

    @Test
    void eventDeadRefusesASlotsBatch() {
        String q = "xq_dead_slot";
        sql.createQueue(q);
        sql.exec("select pgque.subscribe_partitioned(?, 'w', 1)", q);
        long ev = sql.send(q, "s");
        sql.tick(q);
        sql.exec("select pgque.claim_slot(?, 'w', 0, 'me')", q);
        long batch = sql.messages("select * from pgque.receive_partitioned(?, 'w', 0, 1, 'me')", q).get(0).batchId();
        Sql.expectSqlState("PQ009", () -> admin.exec("select pgque.event_dead(?, ?, 'r', now(), null::xid8, 0, 't', 'd')",
                batch, ev));
        assertEquals(0, sql.oneLong("select count(*) from pgque.dlq_inspect(?)", q));
    }

    // ------------------------------------------------------------------ observability

    @Test
    void queueHealthChecksTickerConsumersRotationDeadLettersAndTheScheduler() {
        String q = "xq_health";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        Map<String, List<String>> checks = reader.rows("select * from pgque.queue_health() where queue_name in (?, 'system')", q)
                .stream().collect(Collectors.toMap(r -> (String) r.get("check_name"),
                        r -> List.of((String) r.get("status"), (String) r.get("detail"))));
        assertEquals(Set.of("ticker_running", "consumer_lag:c", "rotation_health", "dlq_health", "pg_cron_ticker", "pg_cron_maint"),
                checks.keySet());
        assertEquals("ok", checks.get("ticker_running").get(0));
        assertEquals("ok", checks.get("consumer_lag:c").get(0));
        assertEquals("ok", checks.get("rotation_health").get(0));
        assertEquals(List.of("ok", "0 dead letter events"), checks.get("dlq_health"));
        assertEquals("manual", checks.get("pg_cron_ticker").get(0), "nothing scheduled here: ticks come from outside");

        // A queue whose last tick is older than twice its idle period has a stopped ticker; a
        // cursor older than the rotation period holds the oldest table.
        String stale = "xq_health_stale";
        sql.createQueue(stale);
        sql.subscribe(stale, "slow");
        sql.exec("update pgque.tick set tick_time = now() - interval '3 hours' where tick_queue ="
                + " (select queue_id from pgque.queue where queue_name = ?)", stale);
        Map<String, String> staleChecks = reader.rows("select * from pgque.queue_health() where queue_name = ?", stale)
                .stream().collect(Collectors.toMap(r -> (String) r.get("check_name"), r -> (String) r.get("status")));
        assertEquals("critical", staleChecks.get("ticker_running"));
        assertEquals("critical", staleChecks.get("consumer_lag:slow"));
        Sql.expectSqlState(DENIED, () -> writer.exec("select * from pgque.queue_health()"));
    }

    @Test
    void otelMetricsAndStuckConsumersReportTheQueueAndConsumerFigures() {
        String q = "xq_otel";
        createWarmQueue(q);
        sql.subscribe(q, "c");
        sql.sendBatch(q, "a", "b", "c");
        sql.tick(q);
        Map<String, Object> metrics = new java.util.HashMap<>();
        for (Map<String, Object> r : reader.rows("select * from pgque.otel_metrics() where labels->>'queue' = ?", q)) {
            assertEquals("gauge", r.get("metric_type"));
            metrics.put((String) r.get("metric_name"), ((Number) r.get("value")).longValue());
        }
        assertEquals(new TreeSet<>(List.of("pgque.queue.depth", "pgque.queue.oldest_message_age_seconds",
                "pgque.queue.throughput", "pgque.message.dead_lettered", "pgque.consumer.lag_seconds",
                "pgque.consumer.pending_events")), new TreeSet<>(metrics.keySet()));
        assertEquals(3L, metrics.get("pgque.queue.depth"));
        assertEquals(3L, metrics.get("pgque.consumer.pending_events"));
        assertEquals(0L, metrics.get("pgque.message.dead_lettered"));

        List<String> stuck = reader.rows("select * from pgque.stuck_consumers('0 seconds') where queue_name = ?", q)
                .stream().map(r -> (String) r.get("consumer_name")).toList();
        assertEquals(List.of("c"), stuck);
        assertEquals(0, reader.rows("select * from pgque.stuck_consumers() where queue_name = ?", q).size(),
                "not behind by the default hour");
        Sql.expectSqlState("22023", () -> reader.exec("select * from pgque.stuck_consumers(null)"));
        Sql.expectSqlState(DENIED, () -> writer.exec("select * from pgque.otel_metrics()"));
        Sql.expectSqlState(DENIED, () -> writer.exec("select * from pgque.stuck_consumers()"));
    }

    @Test
    void inFlightListsTheOpenBatchesOfAQueue() {
        String q = "xq_flight";
        createWarmQueue(q);
        sql.subscribe(q, "busy");
        sql.subscribe(q, "idle");
        sql.sendBatch(q, "a", "b");
        sql.exec("select pgque.force_tick(?)", q);
        sql.tick(q);
        long batch = sql.oneLong("select pgque.next_batch(?, 'busy')", q);
        List<Map<String, Object>> rows = reader.rows("select * from pgque.in_flight(?)", q);
        assertEquals(1, rows.size());
        assertEquals("busy", rows.get(0).get("consumer_name"));
        assertEquals(batch, ((Number) rows.get(0).get("batch_id")).longValue());
        assertEquals(2L, ((Number) rows.get(0).get("estimated_events")).longValue(), "without the forced tick's ids");
        Sql.expectSqlState("PQ001", () -> reader.exec("select * from pgque.in_flight('xq_no_such')"));
        Sql.expectSqlState(DENIED, () -> writer.exec("select * from pgque.in_flight(?)", q));
    }

    @Test
    void throughputAndErrorRateCountPerBucket() {
        String q = "xq_rates";
        createWarmQueue(q);
        sql.config(q, "max_retries", "1");
        sql.subscribe(q, "c");
        sql.sendBatch(q, "a", "b", "c", "d");
        sql.exec("select pgque.force_tick(?)", q);
        sql.tick(q);
        List<Map<String, Object>> buckets = reader.rows("select * from pgque.throughput(?, '1 hour', '1 hour')", q);
        long events = buckets.stream().mapToLong(r -> ((Number) r.get("events")).longValue()).sum();
        assertEquals(4, events, "the events the ticks counted (the warm-up event is a fresh queue's first, never"
                + " counted), not the ids force_tick drew: " + buckets);

        // One event waits in the retry queue (due now), one is dead-lettered.
        List<Msg> got = sql.receive(q, "c", 10);
        sql.nack(got.get(0), "0 seconds", "later");
        sql.exec("select pgque.event_dead(?, ?, 'poison', now(), null::xid8, 0, 't', 'd')", got.get(1).batchId(), got.get(1).msgId());
        sql.ack(got.get(0).batchId());
        List<Map<String, Object>> errors = reader.rows("select * from pgque.error_rate(?, '1 hour', '1 minute')", q);
        assertTrue(errors.size() == 60 || errors.size() == 61, "every minute of the hour: " + errors.size());
        assertEquals(1, errors.stream().mapToLong(r -> ((Number) r.get("retries")).longValue()).sum(), errors.toString());
        assertEquals(1, errors.stream().mapToLong(r -> ((Number) r.get("dead_letters")).longValue()).sum(), errors.toString());

        Sql.expectSqlState("22023", () -> reader.exec("select * from pgque.throughput(?, '1 hour', '0 seconds')", q));
        Sql.expectSqlState("22023", () -> reader.exec("select * from pgque.error_rate(?, '1 year', '1 second')", q));
        Sql.expectSqlState("22023", () -> reader.exec("select * from pgque.throughput(?, null, '1 minute')", q));
        Sql.expectSqlState("PQ001", () -> reader.exec("select * from pgque.throughput('xq_no_such', '1 hour', '1 minute')"));
        Sql.expectSqlState(DENIED, () -> writer.exec("select * from pgque.error_rate(?, '1 hour', '1 minute')", q));
        assertEquals(List.of("bucket_start", "events", "events_per_sec"), new ArrayList<>(buckets.get(0).keySet()));
        assertEquals(List.of("bucket_start", "retries", "dead_letters"), new ArrayList<>(errors.get(0).keySet()));
    }
}

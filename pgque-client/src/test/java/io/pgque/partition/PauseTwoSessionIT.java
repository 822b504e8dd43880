/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.client.PgQueException;
import io.pgque.partition.Pq.Msg;
import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pause policy with real concurrent sessions. Two workers share the slots of one consumer
 * (leases taken over when a worker walks away from an open batch, or handed back after an ack),
 * a producer sends keyed events in order, and some events fail a few times or every time: every
 * key's events are processed exactly once each, in send order, except the ones dead-lettered
 * after max_retries, whatever session paused, redelivered, resumed or took over. And an
 * operator's call on a blocked key waits for the worker's transaction on the key's slot.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PauseTwoSessionIT {

    private static final String C = "c";
    private static final int N = 2;
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static DataSource ds;
    private static ExecutorService pool;

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("pause_two_sessions").installEngine().superuser();
        pool = Executors.newCachedThreadPool();
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
    }

    private static String queue() {
        String q = "pause2_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, C, N);
        return q;
    }

    /** An event to send: key, its sequence number within the key, and how many deliveries fail. */
    private record Planned(String key, int seq, int failures) {

        String payload() {
            return seq + ":" + failures;
        }
    }

    private static final int KEYS = 6;
    private static final int EVENTS = 360;
    private static final int MAX_RETRIES = 3;

    private static List<Planned> plan() {
        Random r = new Random(20261205L);
        Map<String, Integer> seq = new HashMap<>();
        List<Planned> out = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            String key = "key-" + r.nextInt(KEYS);
            int s = seq.merge(key, 1, Integer::sum);
            int dice = r.nextInt(40);
            // Most succeed at once; some fail once or twice; a few never succeed (dead-lettered).
            int failures = dice < 34 ? 0 : dice < 38 ? 1 + r.nextInt(2) : 99;
            out.add(new Planned(key, s, failures));
        }
        return out;
    }

    @Test
    void twoWorkersKeepEveryKeysOrderThroughPausesRedeliveriesAndTakeovers() throws Exception {
        String q = queue();
        Db.exec(ds, "select pgque.set_queue_config(?, 'max_retries', ?)", q, String.valueOf(MAX_RETRIES));
        Db.exec(ds, "create table processed_" + q + " (id bigserial primary key, k text, seq int, ev_id bigint)");
        List<Planned> plan = plan();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger walkAways = new AtomicInteger();
        AtomicInteger takeovers = new AtomicInteger();
        Future<?> producer = pool.submit(() -> {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(true);
                for (int i = 0; i < plan.size(); i++) {
                    Planned p = plan.get(i);
                    Pq.send(c, q, "t", p.payload(), p.key());
                    if (i % 12 == 11) {
                        tick(c, q);
                    }
                }
                tick(c, q);
            }
            return null;
        });
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            String me = "worker-" + w;
            long seed = 31L * (w + 1);
            workers.add(pool.submit(() -> {
                work(q, me, new Random(seed), stop, walkAways, takeovers);
                return null;
            }));
        }
        producer.get(60, TimeUnit.SECONDS);
        long expected = plan.stream().filter(p -> p.failures() <= MAX_RETRIES).count();
        Await.until(() -> "not every event that can succeed processed (" + expected + ") within " + DEADLINE + ": "
                        + Db.count(ds, "select count(*) from processed_" + q) + "; blocked keys "
                        + Pq.blockedKeys(ds, q, C) + "; retries " + Db.rows(ds, "select ev_id, ev_retry, ev_retry_after,"
                        + " ev_extra1 from pgque.retry_queue") + "; slots " + Pq.status(ds, q, C)
                        + "; head copies " + Db.rows(ds, "select e.ev_id, e.ev_owner, e.ev_txid::text, e.ev_retry,"
                        + " e.ev_extra1 from " + Pq.eventTable(ds, q) + " e join pgque.partition_block b"
                        + " on b.pb_head = e.ev_id") + "; subscriptions " + Db.rows(ds, "select s.sub_id, c.co_name,"
                        + " s.sub_last_tick, s.sub_batch, t.tick_snapshot::text from pgque.subscription s join pgque.consumer c"
                        + " on c.co_id = s.sub_consumer join pgque.tick t on t.tick_queue = s.sub_queue"
                        + " and t.tick_id = s.sub_last_tick"),
                DEADLINE, Duration.ofMillis(100), () -> {
                    for (Future<?> f : workers) {
                        if (f.isDone()) {
                            assertWorkerDidNotFail(f);
                        }
                    }
                    return Db.count(ds, "select count(*) from processed_" + q) >= expected;
                });
        stop.set(true);
        for (Future<?> f : workers) {
            f.get(30, TimeUnit.SECONDS);
        }

        Map<String, List<Integer>> processed = new TreeMap<>();
        for (Map<String, Object> row : Db.rows(ds, "select k, seq from processed_" + q + " order by id")) {
            processed.computeIfAbsent((String) row.get("k"), k -> new ArrayList<>()).add((Integer) row.get("seq"));
        }
        Map<String, List<Integer>> wanted = new TreeMap<>();
        for (Planned p : plan) {
            if (p.failures() <= MAX_RETRIES) {
                wanted.computeIfAbsent(p.key(), k -> new ArrayList<>()).add(p.seq());
            }
        }
        assertEquals(wanted, processed, "per key: every event that could succeed, once, in send order");
        Set<String> dead = new HashSet<>();
        for (Map<String, Object> row : Db.rows(ds, "select ev_extra1, ev_data from pgque.dlq_inspect(?, 1000)", q)) {
            dead.add(row.get("ev_extra1") + "/" + row.get("ev_data"));
        }
        Set<String> hopeless = new HashSet<>();
        for (Planned p : plan) {
            if (p.failures() > MAX_RETRIES) {
                hopeless.add(p.key() + "/" + p.payload());
            }
        }
        assertEquals(hopeless, dead, "exactly the events that never succeed are dead letters");
        assertTrue(walkAways.get() > 0 && takeovers.get() > 0,
                "the run exercised walk-aways (" + walkAways + ") and takeovers (" + takeovers + ")");
        assertEquals(0L, Db.count(ds, "select count(*) from pgque.partition_set_aside"));
    }

    private static void assertWorkerDidNotFail(Future<?> worker) {
        try {
            worker.get();
        } catch (ExecutionException e) {
            throw new AssertionError("a worker failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void tick(Connection c, String q) throws SQLException {
        Db.exec(c, "select pgque.force_next_tick(?::text)", q);
        Db.exec(c, "select pgque.ticker(?::text)", q);
    }

    /**
     * One worker: claims the slots it can, reads each one's batch, processes its events in order
     * (a failing one is paused, and its key's later events of the batch are skipped), and records
     * what it processed together with the ack, in one transaction. Now and then it walks away from
     * an open batch (as a crashed worker would) and leaves the slot alone until its lease has run
     * out, so that the other worker takes it over; now and then it hands a slot back after an ack.
     */
    private static void work(String q, String me, Random random, AtomicBoolean stop, AtomicInteger walkAways,
                             AtomicInteger takeovers) throws SQLException {
        long[] avoidUntil = new long[N];
        long[] lastEpoch = new long[N];
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            boolean idle = true;
            long lastTick = System.nanoTime();
            while (!stop.get()) {
                if (idle) {
                    // Only a worker with nothing to read brings retries back and ticks, when events
                    // wait or now and then (the wait is an estimate): empty ticks would outrun the slots.
                    Db.exec(c, "select pgque.maint_retry_events()");
                    if (System.nanoTime() - lastTick > TimeUnit.MILLISECONDS.toNanos(200)
                            || Db.one(c, Long.class, "select ev_new from pgque.get_queue_info(?::text)", q) > 0) {
                        tick(c, q);
                        lastTick = System.nanoTime();
                    }
                }
                idle = true;
                for (int slot = 0; slot < N; slot++) {
                    if (System.nanoTime() < avoidUntil[slot]) {
                        continue;
                    }
                    Long epoch = Pq.claim(c, q, C, slot, me, "1 second");
                    if (epoch == null) {
                        continue;
                    }
                    if (epoch != lastEpoch[slot] && lastEpoch[slot] != 0) {
                        takeovers.incrementAndGet();
                    }
                    lastEpoch[slot] = epoch;
                    try {
                        Boolean served = serve(c, q, slot, me, random);
                        idle &= served == null;
                        if (served == null || served) {
                            if (random.nextInt(3) == 0) {
                                Pq.release(c, q, C, slot, me);
                            }
                        } else {
                            walkAways.incrementAndGet();
                            avoidUntil[slot] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
                        }
                    } catch (SQLException e) {
                        String code = PgQueException.sqlStateOf(e);
                        if (!"PQ004".equals(code) && !"PQ005".equals(code)) {
                            throw e;
                        }
                        // Fenced (the other worker took the slot over meanwhile), or its lease ran
                        // out and was given back: nothing of ours counts.
                    }
                }
            }
        }
    }

    /** One batch of a slot; false when the worker walked away from it without acking, null when there was none. */
    private static Boolean serve(Connection c, String q, int slot, String me, Random random) throws SQLException {
        // Several ticks per batch while behind, pages of 7.
        List<Msg> batch = new ArrayList<>(Pq.query(c, "select * from pgque.receive_partitioned(?::text, ?::text, ?::int,"
                + " ?::int, ?::text, 7, 200::bigint)", q, C, slot, N, me));
        List<Msg> page = batch;
        while (page.size() == 7) {
            page = Pq.readBatch(c, q, C, slot, N, me, batch.get(batch.size() - 1).msgId(), 7);
            batch.addAll(page);
        }
        if (batch.isEmpty()) {
            return null;
        }
        Set<String> paused = new HashSet<>();
        List<Msg> done = new ArrayList<>();
        for (Msg m : batch) {
            if (paused.contains(m.extra1())) {
                continue;
            }
            int failures = Integer.parseInt(m.payload().substring(m.payload().indexOf(':') + 1));
            int delivery = m.retryCount() == null ? 0 : m.retryCount();
            if (delivery < failures) {
                if (Pq.pause(c, q, C, slot, N, me, m, "0 seconds", "failure " + (delivery + 1))) {
                    paused.add(m.extra1());
                }
                continue;
            }
            done.add(m);
        }
        if (random.nextInt(12) == 0) {
            return false;
        }
        c.setAutoCommit(false);
        try {
            try (PreparedStatement ps = c.prepareStatement(
                    "insert into processed_" + q + " (k, seq, ev_id) values (?, ?, ?)")) {
                for (Msg m : done) {
                    ps.setString(1, m.extra1());
                    ps.setInt(2, Integer.parseInt(m.payload().substring(0, m.payload().indexOf(':'))));
                    ps.setLong(3, m.msgId());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            int acked = Db.one(c, Integer.class,
                    "select pgque.ack_partitioned(?::text, ?::text, ?::int, ?::int, ?::text, ?::bigint)",
                    q, C, slot, N, me, batch.get(0).batchId());
            assertEquals(1, acked, "the batch this worker read is the slot's open batch");
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
        return true;
    }

    @Test
    void anOperatorsCallOnABlockedKeyWaitsForTheWorkersTransaction() throws Exception {
        String q = queue();
        String key = "key-op";
        int slot = Pq.expectedSlot(ds, key, N);
        Pq.claim(ds, q, C, slot, "w");
        Pq.send(ds, q, "t", "1", key);
        Pq.send(ds, q, "t", "2", key);
        Pq.tick(ds, q);
        List<Msg> b = Pq.receiveWholeBatch(ds, q, C, slot, N, "w", 100);
        assertTrue(Pq.pause(ds, q, C, slot, N, "w", b.get(0), "0 seconds"));
        assertEquals(1, Pq.ack(ds, q, C, slot, N, "w"));
        Db.exec(ds, "select pgque.maint_retry_events()");
        Pq.tick(ds, q);
        try (Connection worker = ds.getConnection(); Connection operator = ds.getConnection()) {
            worker.setAutoCommit(false);
            List<Msg> redelivered = Pq.receive(worker, q, C, slot, N, "w", 100);
            assertEquals(List.of("1"), redelivered.stream().map(Msg::payload).toList());
            int operatorPid = Db.one(operator, Integer.class, "select pg_backend_pid()");
            Future<Long> deadLetter = pool.submit(() -> Db.one(operator, Long.class,
                    "select pgque.dead_letter_blocked_key(?, ?, ?, 'operator gave up')", q, C, key));
            Db.await(DEADLINE, Duration.ofMillis(20), "the operator's call to wait for the worker's lock", () ->
                    Db.count(ds, "select count(*) from pg_stat_activity where pid = ? and wait_event_type = 'Lock'",
                            operatorPid) == 1);
            assertFalse(deadLetter.isDone());
            // The worker fails it again; once it commits, the event waits in the retry queue and the
            // operator's call takes it.
            assertTrue(Pq.pause(worker, q, C, slot, N, "w", redelivered.get(0), "1 hour", "still failing"));
            Db.exec(worker, "select pgque.ack_partitioned(?::text, ?::text, ?::int, ?::int, ?::text)", q, C, slot, N, "w");
            worker.commit();
            assertEquals(b.get(0).msgId(), deadLetter.get(30, TimeUnit.SECONDS));
        }
        Pq.tick(ds, q);
        assertEquals(List.of("2"), Pq.receiveWholeBatch(ds, q, C, slot, N, "w", 100).stream().map(Msg::payload).toList());
        assertEquals(1, Pq.ack(ds, q, C, slot, N, "w"));
        assertEquals(List.of(), Pq.blockedKeys(ds, q, C));
    }
}

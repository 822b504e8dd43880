/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.partition.Pq.Msg;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Online resize under load, with real concurrent sessions: a producer commits keyed events one
 * transaction at a time, a ticker ticks, four workers run claim loops over whatever slot set is
 * in force (switching when the engine says their set was retired), and a controller resizes
 * 4 → 8, starts 8 → 6 and aborts it, then shrinks 8 → 3 while all of that runs, and rotation
 * switches tables whenever the engine allows. Afterwards every
 * event was delivered exactly once, on the slot of its key under the N of its epoch, in send order
 * per key, and for every key each old-epoch batch was acked before any new-epoch event of the key
 * was handed out.
 */
@Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ResizeConcurrencyIT {

    private static final int KEYS = 40;
    private static final int EVENTS = 1_600;
    private static final int WORKERS = 4;

    private static DataSource ds;
    private static ExecutorService pool;

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("resize_race").installEngine().superuser();
        pool = Executors.newCachedThreadPool();
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
    }

    /** One event handed to a worker; {@code seq} orders hand-outs, {@code ackedBefore} is stamped before its ack call. */
    record Delivery(long msgId, String key, int n, int slot, long seq, long ackedBefore) {
    }

    private static final AtomicLong CLOCK = new AtomicLong();

    @Test
    void growAbortShrinkWhileEventsFlow_exactlyOncePerKeyOrderAndNoOverlapBetweenEpochs() throws Exception {
        String q = "resize_race";
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, "c", 4);
        // Rotation runs as fast as the engine lets it, so it also runs while both slot sets exist.
        Db.exec(ds, "select pgque.set_queue_config(?, 'rotation_period', '1 second')", q);
        AtomicInteger rotations = new AtomicInteger();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicBoolean stop = new AtomicBoolean(false);
        AtomicInteger sentCount = new AtomicInteger();
        Map<Long, String> sent = new java.util.concurrent.ConcurrentHashMap<>();
        List<Delivery> deliveries = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> tasks = new ArrayList<>();

        // The controller hands the producer its events in portions, so each slot count is sure to
        // see events sent after its seal: without the gate a fast producer could finish before the
        // shrink began, and n=3 would read nothing.
        Semaphore allowance = new Semaphore(EVENTS / 5);
        tasks.add(pool.submit(() -> {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(true);
                for (int i = 0; i < EVENTS; i++) {
                    if (!allowance.tryAcquire(120, TimeUnit.SECONDS)) {
                        fail("the controller allowed no further event after " + i);
                    }
                    String key = "k" + (i % KEYS);
                    sent.put(Pq.send(c, q, "t", Integer.toString(i), key), key);
                    sentCount.incrementAndGet();
                }
            } finally {
                producing.set(false);
            }
            return null;
        }));
        tasks.add(pool.submit(() -> {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(true);
                while (!stop.get()) {
                    // A tick may be taken by begin_resize's seal in between: no tick is no error here.
                    Db.exec(c, "select pgque.force_next_tick(?)", q);
                    Db.exec(c, "select pgque.ticker(?)", q);
                    rotations.addAndGet(Db.one(c, Integer.class, "select pgque.maint_rotate_tables_step1(?)", q));
                    Db.exec(c, "select pgque.maint_rotate_tables_step2()");
                    Thread.sleep(20);
                }
            }
            return null;
        }));
        for (int w = 0; w < WORKERS; w++) {
            String worker = "w" + w;
            tasks.add(pool.submit(() -> work(q, worker, stop, deliveries)));
        }

        // The controller: grow, an aborted resize, shrink, each while the producer runs. Each
        // resize begins before the producer may send the next portion, which then flows while the
        // old slots drain.
        awaitSent(sentCount, EVENTS / 5);
        resizeTo(q, 8, () -> allowance.release(EVENTS / 2 - EVENTS / 5));
        awaitSent(sentCount, EVENTS / 2);
        Db.exec(ds, "select pgque.begin_resize(?, ?, ?)", q, "c", 6);
        allowance.release(EVENTS * 3 / 4 - EVENTS / 2);
        // While the resize is pending the old slots read on up to its seal, which every event
        // sent so far is before; the events of the portion just allowed wait for the abort.
        Db.await(Duration.ofSeconds(60), Duration.ofMillis(20), "the old slots drained to the seal before the abort",
                () -> deliveries.size() >= EVENTS / 2);
        assertEquals(8, Db.one(ds, Integer.class, "select pgque.abort_resize(?, ?)", q, "c"));
        awaitSent(sentCount, EVENTS * 3 / 4);
        // The shrink runs on tables that have rotated at least once since the queue was made.
        Db.await(Duration.ofSeconds(60), Duration.ofMillis(20), "a rotation", () -> rotations.get() >= 1);
        resizeTo(q, 3, () -> allowance.release(EVENTS - EVENTS * 3 / 4));

        Db.await(Duration.ofSeconds(120), Duration.ofMillis(50), "every event delivered",
                () -> !producing.get() && deliveries.size() >= sent.size());
        stop.set(true);
        for (Future<?> f : tasks) {
            f.get(60, TimeUnit.SECONDS);
        }

        List<Delivery> log = new ArrayList<>(deliveries);
        log.sort((a, b) -> Long.compare(a.seq(), b.seq()));
        Set<Long> seen = new HashSet<>();
        Map<String, Integer> slots = new HashMap<>();
        for (Delivery d : log) {
            int expected = slots.computeIfAbsent(d.key() + "/" + d.n(), k -> Pq.expectedSlot(ds, d.key(), d.n()));
            assertTrue(seen.add(d.msgId()), "delivered twice: " + d);
            assertEquals(expected, d.slot(), "event on the slot of its key: " + d);
        }
        assertEquals(sent.keySet(), seen, "every sent event delivered");

        Map<String, List<Delivery>> byKey = new HashMap<>();
        for (Delivery d : log) {
            byKey.computeIfAbsent(d.key(), k -> new ArrayList<>()).add(d);
        }
        Set<Integer> epochsSeen = new HashSet<>();
        for (Map.Entry<String, List<Delivery>> e : byKey.entrySet()) {
            List<Delivery> ds = e.getValue();
            for (int i = 1; i < ds.size(); i++) {
                Delivery prev = ds.get(i - 1);
                Delivery next = ds.get(i);
                assertTrue(prev.msgId() < next.msgId(), "key " + e.getKey() + " out of order: " + prev + " then " + next);
                if (prev.n() != next.n()) {
                    // The epochs of a key never interleave, and the old one was acked before the new one started.
                    for (Delivery earlier : ds.subList(0, i)) {
                        assertTrue(earlier.n() != next.n(), "key " + e.getKey() + " went back to n=" + next.n());
                        assertTrue(earlier.ackedBefore() < next.seq(),
                                "key " + e.getKey() + ": " + earlier + " not acked before " + next + " was handed out");
                    }
                }
            }
            ds.forEach(d -> epochsSeen.add(d.n()));
        }
        assertEquals(Set.of(4, 8, 3), epochsSeen, "events were read under all three slot counts; never under n=6");
        assertEquals(0L, Db.count(ds, "select count(*) from pgque.subscription s join pgque.consumer c "
                + "on c.co_id = s.sub_consumer where c.co_name not like 'c#%/3'"), "only the n=3 slots remain");
    }

    /** Resizes to {@code n}, running {@code afterBegin} once the new set is sealed in and before it drains. */
    private static void resizeTo(String q, int n, Runnable afterBegin) {
        Db.exec(ds, "select pgque.begin_resize(?, ?, ?)", q, "c", n);
        afterBegin.run();
        Db.await(Duration.ofSeconds(120), Duration.ofMillis(20), "resize to " + n + " ready",
                () -> Boolean.TRUE.equals(Db.one(ds, Boolean.class, "select pgque.resize_ready(?, ?)", q, "c")));
        assertEquals(n, Db.one(ds, Integer.class, "select pgque.complete_resize(?, ?)", q, "c"));
    }

    private static void awaitSent(AtomicInteger sent, int atLeast) {
        Db.await(Duration.ofSeconds(120), Duration.ofMillis(10), atLeast + " events sent", () -> sent.get() >= atLeast);
    }

    /**
     * A claim loop over the slot set in force: claim, read the whole batch, record it, ack,
     * release. A PQ011 (the set was retired or is not open yet) or a slot number the new set
     * does not have sends the worker back to read N again.
     */
    private static Void work(String q, String worker, AtomicBoolean stop, List<Delivery> deliveries) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            while (!stop.get()) {
                int n = Db.one(c, Integer.class, "select n from pgque.partition_slot_status where queue_name = ? "
                        + "and consumer = 'c' and slot_set <> 'new' limit 1", q);
                for (int k = 0; k < n && !stop.get(); k++) {
                    try {
                        if (Pq.claim(c, q, "c", k, worker, null) == null) {
                            continue;
                        }
                        List<Msg> batch = Pq.receiveWholeBatch(c, q, "c", k, n, worker, 50);
                        long handedOut = CLOCK.incrementAndGet();
                        long ackedBefore = CLOCK.incrementAndGet();
                        if (!batch.isEmpty()) {
                            assertEquals(1, Pq.ack(c, q, "c", k, n, worker));
                            for (Msg m : batch) {
                                deliveries.add(new Delivery(m.msgId(), m.extra1(), n, k, handedOut, ackedBefore));
                            }
                        }
                        Pq.release(c, q, "c", k, worker);
                    } catch (SQLException | Db.SqlError e) {
                        SQLException sql = Db.sqlException(e);
                        String code = sql == null ? null : io.pgque.client.PgQueException.sqlStateOf(sql);
                        if (!("PQ011".equals(code) || "PQ006".equals(code))) {
                            fail("worker " + worker + " failed on slot " + k + "/" + n, e);
                        }
                        break; // the slot set changed under us
                    }
                }
            }
        }
        return null;
    }
}

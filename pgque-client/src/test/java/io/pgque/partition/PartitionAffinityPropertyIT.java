/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.partition.Pq.Msg;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Guarantee G1 (per-key affinity + FIFO) as a property: several producer sessions send random
 * keys concurrently (each key owned by exactly one producer, so a key's events commit one after
 * another), by single keyed sends and by send_events batches, while a ticker cuts the stream
 * into many batches; then every slot is drained in
 * pages. Every event must come out exactly once, on the slot PostgreSQL's own hash assigns to its
 * key, and every key's events must come out in send order.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PartitionAffinityPropertyIT {

    private static final int PRODUCERS = 4;
    private static final int KEYS = 50;
    private static final int EVENTS = 2000;
    private static final int PAGE = 37;

    private static DataSource ds;
    private static final AtomicInteger QUEUES = new AtomicInteger();

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("pkeys_g1").installEngine().superuser();
    }

    /** What a producer recorded about one event it sent. */
    record Sent(String key, int seq) {
    }

    @ParameterizedTest(name = "N={0}")
    @ValueSource(ints = {1, 2, 4, 16})
    void g1_every_event_once_on_its_hash_slot_in_per_key_send_order(int n) throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        String q = "g1_" + n + "_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, "g1", n);

        // Keys: random strings plus awkward ones (empty, non-ASCII, NULL = "no key" -> slot 0).
        List<String> keys = new ArrayList<>();
        keys.add(null);
        keys.add("");
        keys.add("ключ-ü-" + rnd.nextInt(1000));
        while (keys.size() < KEYS) {
            keys.add("k-" + Long.toString(rnd.nextLong() & Long.MAX_VALUE, 36));
        }
        Map<String, Integer> expected = new HashMap<>();
        for (String k : keys) {
            expected.put(k, Pq.expectedSlot(ds, k, n));
        }

        Map<Long, Sent> sent = new java.util.concurrent.ConcurrentHashMap<>();
        ExecutorService exec = Executors.newFixedThreadPool(PRODUCERS + 1);
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicInteger ticks = new AtomicInteger();
        try {
            Future<?> ticker = exec.submit(() -> {
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(true);
                    while (producing.get()) {
                        Db.exec(c, "select pgque.force_next_tick(?::text)", q);
                        if (Db.one(c, Long.class, "select pgque.ticker(?::text)", q) != null) {
                            ticks.incrementAndGet();
                        }
                        Thread.sleep(15); // pacing so producers get the CPU, not a wait for a result
                    }
                }
                return null;
            });
            List<Future<?>> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                final int me = p;
                final long pSeed = rnd.nextLong();
                producers.add(exec.submit(() -> {
                    List<String> mine = new ArrayList<>();
                    for (int i = me; i < keys.size(); i += PRODUCERS) {
                        mine.add(keys.get(i));
                    }
                    Random r = new Random(pSeed);
                    Map<String, Integer> seq = new HashMap<>();
                    try (Connection c = ds.getConnection()) {
                        c.setAutoCommit(true); // each call commits before the next one of any key
                        int left = EVENTS / PRODUCERS;
                        while (left > 0) {
                            // Half the calls are single keyed sends, half are send_events batches
                            // (the sink's path) holding several events of the same keys in order.
                            int size = r.nextBoolean() ? 1 : Math.min(left, 1 + r.nextInt(12));
                            String[] ks = new String[size];
                            String[] ps = new String[size];
                            int[] ss = new int[size];
                            for (int i = 0; i < size; i++) {
                                ks[i] = mine.get(r.nextInt(mine.size()));
                                ss[i] = seq.merge(ks[i], 1, Integer::sum);
                                ps[i] = me + ":" + ks[i] + ":" + ss[i];
                            }
                            if (size == 1) {
                                sent.put(Pq.send(c, q, "evt", ps[0], ks[0]), new Sent(ks[0], ss[0]));
                            } else {
                                Long[] ids;
                                try (var st = c.prepareStatement("select pgque.send_events(?::text, null::text[], ?::text[], ?::text[])")) {
                                    Db.bind(c, st, q, ps, ks);
                                    try (var rs = st.executeQuery()) {
                                        rs.next();
                                        ids = (Long[]) rs.getArray(1).getArray();
                                    }
                                }
                                for (int i = 0; i < size; i++) {
                                    sent.put(ids[i], new Sent(ks[i], ss[i]));
                                }
                            }
                            left -= size;
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : producers) {
                f.get(120, TimeUnit.SECONDS);
            }
            producing.set(false);
            ticker.get(30, TimeUnit.SECONDS);
        } finally {
            exec.shutdownNow();
        }
        Pq.tick(ds, q);
        assertEquals(EVENTS, sent.size(), "ids returned by send must be distinct");

        Map<Long, Integer> slotOf = new HashMap<>();
        int batchesSeen = 0;
        for (int k = 0; k < n; k++) {
            List<Msg> got = Pq.drainSlot(ds, q, "g1", k, n, "drainer-" + k, PAGE);
            Set<Long> batches = new HashSet<>();
            Map<String, Integer> lastSeq = new HashMap<>();
            Map<String, Long> lastId = new HashMap<>();
            for (Msg m : got) {
                batches.add(m.batchId());
                Integer before = slotOf.put(m.msgId(), k);
                if (before != null) {
                    fail("seed " + seed + ": msg " + m.msgId() + " delivered on slot " + before + " and slot " + k);
                }
                Sent s = sent.get(m.msgId());
                assertNotNull(s, "seed " + seed + ": slot " + k + " delivered an event nobody sent: " + m);
                assertEquals(s.key(), m.extra1(), "seed " + seed + ": key of msg " + m.msgId());
                assertEquals(expected.get(s.key()).intValue(), k,
                        "seed " + seed + ": key '" + s.key() + "' (msg " + m.msgId() + ") on the wrong slot");
                Integer prev = lastSeq.put(s.key(), s.seq());
                assertEquals(prev == null ? 1 : prev + 1, s.seq(),
                        "seed " + seed + ": key '" + s.key() + "' out of send order on slot " + k + " (msg " + m.msgId() + ")");
                Long prevId = lastId.put(s.key(), m.msgId());
                assertTrue(prevId == null || prevId < m.msgId(), "seed " + seed + ": msg_id order of key '" + s.key() + "'");
            }
            batchesSeen += batches.size();
        }
        assertEquals(sent.keySet(), slotOf.keySet(), "seed " + seed + ": every sent event delivered exactly once over all slots");
        assertTrue(batchesSeen >= n, "expected several batches; ticks during production: " + ticks.get());
    }
}

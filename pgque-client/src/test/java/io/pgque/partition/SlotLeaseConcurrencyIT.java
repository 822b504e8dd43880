/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.partition.Pq.Msg;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Guarantee G2 (one processor per key, enforced by the server) with real concurrent sessions:
 * racing claims, a claim-loop worker pool, takeover of a silent worker by an heir that gets the
 * same open batch while the zombie is fenced, and claim_slot never blocking on a busy lease row.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SlotLeaseConcurrencyIT {

    private static DataSource ds;
    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static ExecutorService pool;

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("pkeys_g2").installEngine().superuser();
        pool = Executors.newCachedThreadPool();
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
    }

    private static String partitioned(String prefix, String consumer, int n) {
        String q = prefix + "_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, consumer, n);
        return q;
    }

    record Claim(int round, int slot, String worker, Long epoch) {
    }

    @Test
    void g2_racing_claims_exactly_one_owner_per_slot_per_round() throws Exception {
        final int workers = 6;
        final int n = 4;
        final int rounds = 15;
        String q = partitioned("race", "c", n);
        CyclicBarrier start = new CyclicBarrier(workers);
        CyclicBarrier end = new CyclicBarrier(workers);
        ConcurrentLinkedQueue<Claim> claims = new ConcurrentLinkedQueue<>();
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            final String me = "racer-" + w;
            final long seed = w * 7919L;
            fs.add(pool.submit(() -> {
                Random r = new Random(seed);
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(true);
                    for (int round = 0; round < rounds; round++) {
                        List<Integer> order = new ArrayList<>();
                        for (int k = 0; k < n; k++) {
                            order.add(k);
                        }
                        Collections.shuffle(order, r);
                        start.await(30, TimeUnit.SECONDS);
                        for (int k : order) {
                            claims.add(new Claim(round, k, me, Pq.claim(c, q, "c", k, me, null)));
                        }
                        end.await(30, TimeUnit.SECONDS);
                        // Winners hand their slots back at a batch boundary before the next round.
                        for (Claim cl : claims) {
                            if (cl.round() == round && me.equals(cl.worker()) && cl.epoch() != null) {
                                assertEquals(Boolean.TRUE, Pq.release(c, q, "c", cl.slot(), me));
                            }
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get(120, TimeUnit.SECONDS);
        }
        Map<Integer, Long> lastEpoch = new HashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < n; k++) {
                final int rr = round;
                final int kk = k;
                List<Claim> won = claims.stream().filter(c -> c.round() == rr && c.slot() == kk && c.epoch() != null).toList();
                assertEquals(1, won.size(), "round " + round + " slot " + k + " winners: " + won);
                Long prev = lastEpoch.put(k, won.get(0).epoch());
                assertTrue(prev == null || won.get(0).epoch() > prev,
                        "slot " + k + ": epochs must grow with every takeover, " + prev + " -> " + won.get(0).epoch());
            }
        }
    }

    record Handled(int slot, String worker, long epoch, List<Msg> batch) {
    }

    @Test
    void g2_claim_loop_pool_processes_every_event_once_in_slot_order() throws Exception {
        final int workers = 5;
        final int n = 4;
        final int events = 400;
        String q = partitioned("pool", "c", n);
        for (int i = 0; i < events; i++) {
            Pq.send(ds, q, "evt", Integer.toString(i), "key-" + (i % 23));
            if (i % 50 == 49) {
                Pq.tick(ds, q);
            }
        }
        Pq.tick(ds, q);
        ConcurrentLinkedQueue<Handled> handled = new ConcurrentLinkedQueue<>();
        Map<Integer, Boolean> done = new ConcurrentHashMap<>();
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            final String me = "pool-" + w;
            fs.add(pool.submit(() -> {
                Random r = new Random(me.hashCode());
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(true);
                    while (done.size() < n) {
                        if (System.nanoTime() > deadline) {
                            fail(me + ": pool did not drain the queue");
                        }
                        int k = r.nextInt(n);
                        Long epoch = Pq.claim(c, q, "c", k, me, null);
                        if (epoch == null) {
                            continue;
                        }
                        // One batch per lease, so slots change hands often.
                        List<Msg> batch = Pq.receiveWholeBatch(c, q, "c", k, n, me, 7);
                        if (batch.isEmpty()) {
                            if (Pq.caughtUp(c, q, Pq.slotConsumer("c", k, n))) {
                                done.put(k, true);
                            }
                        } else {
                            handled.add(new Handled(k, me, epoch, batch));
                            assertEquals(1, Pq.ack(c, q, "c", k, n, me));
                        }
                        assertEquals(Boolean.TRUE, Pq.release(c, q, "c", k, me));
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get(120, TimeUnit.SECONDS);
        }
        Map<Long, Integer> seen = new HashMap<>();
        Map<Integer, List<Handled>> bySlot = new HashMap<>();
        for (Handled h : handled) {
            bySlot.computeIfAbsent(h.slot(), x -> new ArrayList<>()).add(h);
            for (Msg m : h.batch()) {
                assertEquals(h.slot(), Pq.expectedSlot(ds, m.extra1(), n), "msg " + m.msgId() + " on the wrong slot");
                Integer before = seen.put(m.msgId(), h.slot());
                assertNull(before, "msg " + m.msgId() + " processed twice");
            }
        }
        assertEquals(events, seen.size(), "every event processed exactly once");
        Map<String, Integer> workersUsed = new HashMap<>();
        for (Map.Entry<Integer, List<Handled>> e : bySlot.entrySet()) {
            List<Handled> hs = new ArrayList<>(e.getValue());
            hs.sort((a, b) -> Long.compare(a.epoch(), b.epoch()));
            Map<String, Long> lastIdOfKey = new HashMap<>();
            long prevEpoch = -1;
            for (Handled h : hs) {
                assertTrue(h.epoch() > prevEpoch, "slot " + e.getKey() + ": two leases with epoch " + h.epoch());
                prevEpoch = h.epoch();
                workersUsed.merge(h.worker(), 1, Integer::sum);
                for (Msg m : h.batch()) {
                    Long prev = lastIdOfKey.put(m.extra1(), m.msgId());
                    assertTrue(prev == null || prev < m.msgId(),
                            "slot " + e.getKey() + ": key " + m.extra1() + " out of order across hand-overs");
                }
            }
        }
        assertTrue(workersUsed.size() > 1, "expected slots to change hands between workers: " + workersUsed);
    }

    @Test
    void g2_silent_worker_replaced_after_ttl_by_heir_with_same_batch_zombie_fenced() throws Exception {
        final int n = 2;
        String q = partitioned("heir", "c", n);
        String key = "tenant-heir";
        int slot = Pq.expectedSlot(ds, key, n);
        for (int i = 0; i < 3; i++) {
            Pq.send(ds, q, "evt", "h" + i, key);
        }
        Pq.tick(ds, q);
        Long zombieEpoch = Pq.claim(ds, q, "c", slot, "zombie", "1 second");
        assertNotNull(zombieEpoch);
        List<Msg> zombieBatch = Pq.receive(ds, q, "c", slot, n, "zombie", 100);
        assertEquals(3, zombieBatch.size());
        OffsetDateTime zombieLeaseEnd = Db.one(ds, OffsetDateTime.class,
                "select lease_until from pgque.partition_slot_status where queue_name = ? and consumer = 'c' and slot = ?", q, slot);
        assertNotNull(zombieLeaseEnd);
        // The zombie now goes silent. Three heirs poll the slot.
        AtomicReference<String> winner = new AtomicReference<>();
        ConcurrentLinkedQueue<Object[]> attempts = new ConcurrentLinkedQueue<>();
        List<Future<?>> heirs = new ArrayList<>();
        for (int h = 0; h < 3; h++) {
            final String me = "heir-" + h;
            heirs.add(pool.submit(() -> {
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(true);
                    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                    while (winner.get() == null && System.nanoTime() < deadline) {
                        Map<String, Object> r = Db.rows(c,
                                "select pgque.claim_slot(?::text, 'c', ?::int, ?::text) as epoch, clock_timestamp() as at",
                                q, slot, me).get(0);
                        Long e = (Long) r.get("epoch");
                        attempts.add(new Object[]{me, e, r.get("at")});
                        if (e != null) {
                            winner.compareAndSet(null, me);
                        }
                        Thread.sleep(50);
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : heirs) {
            f.get(30, TimeUnit.SECONDS);
        }
        String heir = winner.get();
        assertNotNull(heir, "an heir must take over once the silent worker's TTL has run out");
        List<Object[]> wins = attempts.stream().filter(a -> a[1] != null).toList();
        assertEquals(1, wins.size(), "exactly one successful takeover");
        long heirEpoch = (Long) wins.get(0)[1];
        assertTrue(heirEpoch > zombieEpoch, "heir epoch " + heirEpoch + " > zombie epoch " + zombieEpoch);
        OffsetDateTime wonAt = toOffset(wins.get(0)[2]);
        assertFalse(wonAt.isBefore(zombieLeaseEnd), "takeover at " + wonAt + " while the zombie's lease ran until " + zombieLeaseEnd);
        // Losers still cannot claim; the winner's claim is a renewal with its epoch.
        for (int h = 0; h < 3; h++) {
            String other = "heir-" + h;
            Long again = Pq.claim(ds, q, "c", slot, other);
            if (other.equals(heir)) {
                assertEquals(heirEpoch, again);
            } else {
                assertNull(again, other + " must not share the slot with " + heir);
            }
        }
        List<Msg> heirBatch = Pq.receive(ds, q, "c", slot, n, heir, 100);
        assertEquals(zombieBatch, heirBatch, "the heir is re-issued the same open batch (same batch_id and msg_ids)");
        Db.assertSqlState("PQ004", () -> Pq.ack(ds, q, "c", slot, n, "zombie"));
        Db.assertSqlState("PQ004", () -> Pq.receive(ds, q, "c", slot, n, "zombie", 100));
        Db.assertSqlState("PQ004", () -> Pq.nack(ds, q, "c", slot, n, "zombie", zombieBatch.get(0), "0 seconds"));
        assertEquals(1, Pq.ack(ds, q, "c", slot, n, heir), "the heir's ack finishes the batch the zombie could not");
        assertEquals(List.of(), Pq.receive(ds, q, "c", slot, n, heir, 100));
    }

    private static OffsetDateTime toOffset(Object o) {
        if (o instanceof OffsetDateTime odt) {
            return odt;
        }
        if (o instanceof java.sql.Timestamp ts) {
            return ts.toInstant().atOffset(java.time.ZoneOffset.UTC);
        }
        throw new IllegalArgumentException("not a timestamp: " + o);
    }

    @Test
    void g2_claim_never_blocks_on_a_lease_row_locked_by_an_open_receive() throws Exception {
        final int n = 1;
        String q = partitioned("noblock", "c", n);
        Pq.send(ds, q, "evt", "x", "k");
        Pq.tick(ds, q);
        // a is closed first, so its locks go before b (which may be waiting on them) is closed
        try (Connection b = ds.getConnection(); Connection a = ds.getConnection()) {
            a.setAutoCommit(true);
            assertNotNull(Pq.claim(a, q, "c", 0, "worker-a", "1 second"));
            a.setAutoCommit(false);
            assertEquals(1, Pq.receive(a, q, "c", 0, n, "worker-a", 100).size()); // holds the lease row lock
            b.setAutoCommit(true);
            Db.exec(b, "set statement_timeout = '10s'");
            // A lease that is live, and (after A's TTL) one that has expired: B must skip both.
            for (String phase : List.of("live lease", "expired lease")) {
                if (phase.equals("expired lease")) {
                    Db.exec(a, "select pg_sleep(1.2)");
                }
                long t0 = System.nanoTime();
                Future<Long> claim = pool.submit(() -> Pq.claim(b, q, "c", 0, "worker-b", null));
                Long got;
                try {
                    got = claim.get(2, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    a.rollback();
                    fail("claim_slot blocked on the row lock of an open receive transaction (" + phase + ")");
                    return;
                }
                assertNull(got, "busy slot (" + phase + ") must not be claimable");
                assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(2).toNanos());
            }
            a.commit();
        }
    }

}

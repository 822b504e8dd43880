/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.partition.Pq.Msg;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pause failure policy on one slot, one session at a time: a paused event blocks only its key,
 * the key's later events are set aside in order without a retry counted, and come back, before any
 * newer event of the key, once the paused event is acked after its redelivery or dead-lettered
 * (at max_retries, or by an operator). A slot that never pauses keeps no state for it. Bad input
 * is refused with the engine's codes. Concurrent sessions: {@link PauseTwoSessionIT}.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PausePolicyIT {

    private static final String C = "c";
    private static final String W = "w";
    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static DataSource ds;

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("pause_policy").installEngine().superuser();
    }

    /** A queue with consumer c of n slots, all claimed by worker w. */
    private static String queue(int n) {
        String q = "pause_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, C, n);
        for (int k = 0; k < n; k++) {
            assertNotNull(Pq.claim(ds, q, C, k, W));
        }
        return q;
    }

    private static List<String> payloads(List<Msg> batch) {
        return batch.stream().map(Msg::payload).toList();
    }

    private static Msg find(List<Msg> batch, String payload) {
        return batch.stream().filter(m -> m.payload().equals(payload)).findFirst().orElseThrow(
                () -> new AssertionError(payload + " not in " + payloads(batch)));
    }

    /** Sends each payload with the key before its first '-' (K-1 has key K). */
    private static void send(String q, String... payloads) {
        for (String p : payloads) {
            Pq.send(ds, q, "t", p, p.substring(0, p.indexOf('-')));
        }
    }

    private static List<Msg> nextBatch(String q) {
        Pq.tick(ds, q);
        return Pq.receiveWholeBatch(ds, q, C, 0, 1, W, 100);
    }

    private static void ack(String q) {
        assertEquals(1, Pq.ack(ds, q, C, 0, 1, W));
    }

    private static long pauseState(String q) {
        return Db.count(ds, "select (select count(*) from pgque.partition_block b join pgque.queue q on q.queue_id = b.pb_queue"
                + " where q.queue_name = ?) + (select count(*) from pgque.partition_set_aside s join pgque.queue q"
                + " on q.queue_id = s.sa_queue where q.queue_name = ?)", q, q);
    }

    /** The retry mover, then the next batch: a paused event's redelivery is due at once (retry_after 0). */
    private static List<Msg> redeliver(String q) {
        Db.exec(ds, "select pgque.maint_retry_events()");
        return nextBatch(q);
    }

    @Test
    void aSlotThatNeverPausesKeepsNoPauseState() {
        String q = queue(2);
        for (int i = 0; i < 20; i++) {
            send(q, "K" + (i % 4) + "-" + i);
        }
        Pq.tick(ds, q);
        for (int k = 0; k < 2; k++) {
            List<Msg> batch = Pq.receiveWholeBatch(ds, q, C, k, 2, W, 100);
            assertFalse(batch.isEmpty());
            Pq.nack(ds, q, C, k, 2, W, batch.get(0), "0 seconds");
            assertEquals(1, Pq.ack(ds, q, C, k, 2, W));
        }
        assertEquals(0, pauseState(q), "skip and the happy path write no pause state");
        assertEquals(List.of(), Pq.blockedKeys(ds, q, C));
    }

    @Test
    void aPausedKeyWaitsForItsEventWhileOtherKeysFlowThenResumesInOrder() {
        String q = queue(1);
        send(q, "K-1", "O-1", "K-2", "K-3", "O-2");
        List<Msg> b1 = nextBatch(q);
        assertEquals(List.of("K-1", "O-1", "K-2", "K-3", "O-2"), payloads(b1));
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, find(b1, "K-2"), "0 seconds"));
        // The batch read again: the key's events before the paused one stay, the rest is set aside.
        assertEquals(List.of("K-1", "O-1", "O-2"), payloads(Pq.receiveWholeBatch(ds, q, C, 0, 1, W, 2)));
        Map<String, Object> blocked = Pq.blockedKeys(ds, q, C).get(0);
        assertEquals("K", blocked.get("partition_key"));
        assertEquals(find(b1, "K-2").msgId(), blocked.get("msg_id"));
        assertEquals("retrying", blocked.get("state"));
        assertEquals(1, blocked.get("retry_count"));
        assertEquals(1L, blocked.get("set_aside"));
        assertEquals(0, blocked.get("slot"));
        assertNotNull(blocked.get("blocked_since"));
        ack(q);

        send(q, "K-4", "O-3");
        assertEquals(List.of("O-3"), payloads(nextBatch(q)), "other keys flow; the blocked key's new event waits");
        ack(q);
        assertEquals(2L, Pq.blockedKeys(ds, q, C).get(0).get("set_aside"));

        send(q, "K-5");
        List<Msg> b3 = redeliver(q);
        assertEquals(List.of("K-2"), payloads(b3), "the paused event comes back alone");
        assertEquals(1, b3.get(0).retryCount());
        assertEquals("in batch", Pq.blockedKeys(ds, q, C).get(0).get("state"));
        ack(q);
        assertEquals("resuming", Pq.blockedKeys(ds, q, C).get(0).get("state"));

        send(q, "K-6", "O-4");
        List<Msg> b4 = nextBatch(q);
        assertEquals(List.of("K-3", "K-4", "K-5", "K-6", "O-4"), payloads(b4),
                "the set-aside events first, in order, then the key's newer ones");
        assertTrue(b4.stream().allMatch(m -> m.retryCount() == null), "setting aside counts no retry: " + b4);
        ack(q);
        assertEquals(0, pauseState(q));
        send(q, "K-7");
        assertEquals(List.of("K-7"), payloads(nextBatch(q)));
        ack(q);
    }

    @Test
    void anEventThatFailsEveryTimeIsDeadLetteredAtMaxRetriesAndItsKeyResumes() {
        String q = queue(1);
        Db.exec(ds, "select pgque.set_queue_config(?, 'max_retries', '2')", q);
        send(q, "K-1", "K-2");
        Msg k1 = nextBatch(q).get(0);
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, k1, "0 seconds"));
        ack(q);
        for (int retry = 1; retry <= 2; retry++) {
            List<Msg> b = redeliver(q);
            assertEquals(List.of("K-1"), payloads(b));
            assertEquals(retry, b.get(0).retryCount());
            boolean blocked = Pq.pause(ds, q, C, 0, 1, W, b.get(0), "0 seconds");
            assertEquals(retry < 2, blocked, "retry " + retry + ": blocked while retries remain");
            ack(q);
        }
        assertEquals(1L, Db.count(ds, "select count(*) from pgque.dlq_inspect(?) where ev_id = ?", q, k1.msgId()));
        send(q, "K-3");
        assertEquals(List.of("K-2", "K-3"), payloads(nextBatch(q)));
        ack(q);
        assertEquals(0, pauseState(q));
    }

    @Test
    void anEventPausedAtMaxRetriesIsDeadLetteredAndBlocksNothing() {
        String q = queue(1);
        Db.exec(ds, "select pgque.set_queue_config(?, 'max_retries', '0')", q);
        send(q, "K-1", "K-2");
        List<Msg> b = nextBatch(q);
        assertFalse(Pq.pause(ds, q, C, 0, 1, W, b.get(0), "0 seconds"));
        assertEquals(List.of("K-1", "K-2"), payloads(Pq.receiveWholeBatch(ds, q, C, 0, 1, W, 100)));
        ack(q);
        assertEquals(0, pauseState(q));
        assertEquals(1L, Db.count(ds, "select count(*) from pgque.dlq_inspect(?)", q));
    }

    @Test
    void anOperatorDeadLettersABlockedKeysEventAndTheKeyResumes() {
        String q = queue(1);
        send(q, "K-1", "K-2", "O-1");
        List<Msg> b1 = nextBatch(q);
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, find(b1, "K-1"), "1 hour"));
        ack(q);
        String later = Db.one(ds, String.class, "select retry_after::text from pgque.blocked_keys(?, ?)", q, C);
        assertEquals(1, Db.one(ds, Integer.class, "select pgque.retry_blocked_key(?, ?, 'K')", q, C));
        assertTrue(Db.one(ds, Boolean.class, "select retry_after <= now() and retry_after::text <> ? from pgque.blocked_keys(?, ?)",
                later, q, C), "the redelivery is due now");
        // On its way back (moved out of the retry queue): it cannot be taken.
        Db.exec(ds, "select pgque.maint_retry_events()");
        assertEquals("redelivering", Pq.blockedKeys(ds, q, C).get(0).get("state"));
        Db.assertSqlState("55000", () -> Db.exec(ds, "select pgque.dead_letter_blocked_key(?, ?, 'K', 'gave up')", q, C));
        assertEquals(0, Db.one(ds, Integer.class, "select pgque.retry_blocked_key(?, ?, 'K')", q, C));
        List<Msg> b2 = nextBatch(q);
        assertEquals(List.of("K-1"), payloads(b2));
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, b2.get(0), "1 hour"));
        ack(q);
        assertEquals(find(b1, "K-1").msgId(),
                Db.one(ds, Long.class, "select pgque.dead_letter_blocked_key(?, ?, 'K', 'gave up')", q, C));
        assertEquals("resuming", Pq.blockedKeys(ds, q, C).get(0).get("state"));
        Map<String, Object> dead = Db.rows(ds, "select ev_id, dl_reason, ev_retry from pgque.dlq_inspect(?)", q).get(0);
        assertEquals(find(b1, "K-1").msgId(), dead.get("ev_id"));
        assertEquals("gave up", dead.get("dl_reason"));
        assertEquals(2, dead.get("ev_retry"));
        send(q, "K-3");
        assertEquals(List.of("K-2", "K-3"), payloads(nextBatch(q)));
        ack(q);
        assertEquals(0, pauseState(q));
        // Nothing set aside: the key is forgotten at once.
        send(q, "K-4");
        Msg k4 = nextBatch(q).get(0);
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, k4, "1 hour"));
        ack(q);
        Db.exec(ds, "select pgque.dead_letter_blocked_key(?, ?, 'K', 'gave up')", q, C);
        assertEquals(0, pauseState(q));
    }

    @Test
    void aRepeatedPauseGivesTheSameAnswerAndSetsNothingAsideTwice() {
        String q = queue(1);
        send(q, "K-1", "K-2", "K-3");
        List<Msg> b = nextBatch(q);
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, b.get(0), "0 seconds"));
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, b.get(0), "0 seconds"));
        assertEquals(2L, Pq.blockedKeys(ds, q, C).get(0).get("set_aside"));
        assertEquals(1L, Db.count(ds, "select count(*) from pgque.retry_queue r join pgque.queue q on q.queue_id = r.ev_queue"
                + " where q.queue_name = ?", q));
        ack(q);
        Msg head = redeliver(q).get(0);
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, head, "0 seconds"));
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, head, "0 seconds"));
        assertEquals(2, Pq.blockedKeys(ds, q, C).get(0).get("retry_count"));
        ack(q);
    }

    @Test
    void aSlotWithABlockedKeyReadsNothingAheadAndOpensNothingReadAhead() {
        String q = queue(1);
        send(q, "K-1", "O-1");
        List<Msg> b1 = nextBatch(q);
        send(q, "O-2");
        Pq.tick(ds, q);
        long b1Id = b1.get(0).batchId();
        Map<String, Object> ahead = Db.rows(ds, "select batch_id, from_tick, to_tick from pgque.read_ahead_query(?, ?, 0, 1, ?, ?, null, 100)",
                q, C, W, b1Id).get(0);
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, find(b1, "K-1"), "0 seconds"));
        assertEquals(0L, Db.count(ds, "select count(*) from pgque.read_ahead_query(?, ?, 0, 1, ?, ?, null, 100)", q, C, W, b1Id),
                "no read-ahead while a key is blocked");
        ack(q);
        assertFalse(Db.one(ds, Boolean.class, "select pgque.open_read_ahead_partitioned(?, ?, 0, 1, ?, ?, ?, ?)",
                q, C, W, ahead.get("batch_id"), ahead.get("from_tick"), ahead.get("to_tick")));
        assertEquals(List.of("O-2"), payloads(Pq.receiveWholeBatch(ds, q, C, 0, 1, W, 100)));
        ack(q);
        assertEquals(List.of("K-1"), payloads(redeliver(q)));
        ack(q);
        assertEquals(0, pauseState(q));
        send(q, "K-2");
        List<Msg> b = nextBatch(q);
        send(q, "K-3");
        Pq.tick(ds, q);
        assertEquals(1L, Db.count(ds, "select count(*) from pgque.read_ahead_query(?, ?, 0, 1, ?, ?, null, 100)",
                q, C, W, b.get(0).batchId()), "read-ahead is back once no key is blocked");
        ack(q);
    }

    @Test
    void blockedKeysAreKeptPerSlotAndFollowTheirKeyThroughAResize() {
        String q = queue(2);
        String k0 = key(2, 0);
        String k1 = key(2, 1);
        for (String k : List.of(k0, k1)) {
            send(q, k + "-1", k + "-2");
        }
        Pq.tick(ds, q);
        for (int slot = 0; slot < 2; slot++) {
            List<Msg> b = Pq.receiveWholeBatch(ds, q, C, slot, 2, W, 100);
            assertEquals(2, b.size());
            assertTrue(Pq.pause(ds, q, C, slot, 2, W, b.get(0), "0 seconds"));
            assertEquals(1, Pq.ack(ds, q, C, slot, 2, W));
        }
        List<Map<String, Object>> blocked = Pq.blockedKeys(ds, q, C);
        assertEquals(List.of(0, 1), blocked.stream().map(r -> r.get("slot")).toList());
        assertEquals(List.of(k0, k1), blocked.stream().map(r -> r.get("partition_key")).toList());

        // A resize carries the blocks, their set-aside events and their retries to the new slots.
        Db.exec(ds, "select pgque.begin_resize(?, ?, 3)", q, C);
        send(q, k0 + "-3");
        Pq.tick(ds, q);
        Db.exec(ds, "select pgque.maint_retry_events()"); // held back while the old slots drain
        for (int slot = 0; slot < 2; slot++) {
            assertEquals(List.of(), payloads(Pq.receiveWholeBatch(ds, q, C, slot, 2, W, 100)));
        }
        assertTrue(Db.one(ds, Boolean.class, "select pgque.resize_ready(?, ?)", q, C));
        assertEquals(3, Db.one(ds, Integer.class, "select pgque.complete_resize(?, ?)", q, C));
        List<Map<String, Object>> moved = Pq.blockedKeys(ds, q, C);
        assertEquals(List.of(k0, k1).stream().map(k -> Pq.expectedSlot(ds, k, 3)).sorted().toList(),
                moved.stream().map(r -> (Integer) r.get("slot")).sorted().toList());
        assertTrue(moved.stream().allMatch(r -> (Integer) r.get("n") == 3));
        Db.exec(ds, "select pgque.maint_retry_events()");
        Pq.tick(ds, q);
        List<String> delivered = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (int slot = 0; slot < 3; slot++) {
                delivered.addAll(payloads(Pq.drainSlot(ds, q, C, slot, 3, W, 100)));
            }
            Pq.tick(ds, q); // the released keys' set-aside events go out with the next batch
        }
        assertEquals(List.of(k0 + "-1", k0 + "-2", k0 + "-3"), delivered.stream().filter(p -> p.startsWith(k0 + "-")).toList());
        assertEquals(List.of(k1 + "-1", k1 + "-2"), delivered.stream().filter(p -> p.startsWith(k1 + "-")).toList());
        assertEquals(0, pauseState(q));
    }

    /**
     * O2: a hot blocked key costs each batch the same, however much of it was set aside before: no
     * read of the batch, no ack, rescans what was set aside. Measured in buffers (work, not time),
     * on one session, so that plans cached for the session are what runs.
     */
    @Test
    void aHotBlockedKeyCostsEveryBatchTheSameWhateverWasSetAsideBefore() throws Exception {
        String q = queue(1);
        send(q, "HOT-0");
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, nextBatch(q).get(0), "1 day"));
        ack(q);
        List<Long> work = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            for (int batch = 0; batch < 40; batch++) {
                String[] types = new String[200];
                String[] payloads = new String[200];
                String[] keys = new String[200];
                for (int i = 0; i < 200; i++) {
                    types[i] = "t";
                    payloads[i] = "x".repeat(500);
                    keys[i] = i % 2 == 0 ? "HOT" : "k" + i;
                }
                Db.exec(c, "select pgque.send_events(?::text, ?::text[], ?::text[], ?::text[])", q, types, payloads, keys);
                Db.exec(c, "select pgque.force_next_tick(?::text)", q);
                Db.exec(c, "select pgque.ticker(?::text)", q);
                long buffers = buffers(c, "select count(*) from pgque.receive_partitioned('" + q + "', 'c', 0, 1, 'w', 100)")
                        + buffers(c, "select count(*) from pgque.read_batch_partitioned('" + q + "', 'c', 0, 1, 'w', 0, 1000)")
                        + buffers(c, "select pgque.ack_partitioned('" + q + "', 'c', 0, 1, 'w')");
                work.add(buffers);
            }
        }
        assertEquals(4000L, Pq.blockedKeys(ds, q, C).get(0).get("set_aside"));
        double early = work.subList(5, 10).stream().mapToLong(Long::longValue).average().orElseThrow();
        double late = work.subList(35, 40).stream().mapToLong(Long::longValue).average().orElseThrow();
        assertTrue(late < early * 1.2, "buffers per batch grew from " + early + " to " + late + ": " + work);
    }

    /** Shared buffers a statement touched, by EXPLAIN (ANALYZE, BUFFERS). */
    private static long buffers(Connection c, String sql) throws Exception {
        long total = 0;
        for (Map<String, Object> row : Db.rows(c, "explain (analyze, buffers, costs off, timing off, summary off) " + sql)) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\S*Buffers: shared hit=(\\d+)(?: read=(\\d+))?")
                    .matcher(String.valueOf(row.values().iterator().next()).trim());
            if (m.find()) {
                total = Math.max(total, Long.parseLong(m.group(1)) + (m.group(2) == null ? 0 : Long.parseLong(m.group(2))));
            }
        }
        return total;
    }

    @Test
    void unsubscribingTheConsumerDropsItsPauseState() {
        String q = queue(1);
        send(q, "K-1", "K-2");
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, nextBatch(q).get(0), "1 hour"));
        ack(q);
        assertTrue(pauseState(q) > 0);
        Db.exec(ds, "select pgque.unsubscribe_partitioned(?, ?)", q, C);
        assertEquals(0, pauseState(q));
    }

    @Test
    void badInputIsRefused() throws Exception {
        String q = queue(1);
        Pq.send(ds, q, "t", "keyless", null);
        send(q, "K-1", "K-2");
        // No open batch.
        Msg forged = new Msg(1, 1, "t", "x", null, "K", null, null, null);
        Db.assertSqlState("PQ003", () -> Pq.pause(ds, q, C, 0, 1, W, forged, "0 seconds"));
        List<Msg> b = nextBatch(q);
        Db.assertSqlState("22023", () -> Pq.pause(ds, q, C, 0, 1, W, find(b, "keyless"), "0 seconds"));
        Db.assertSqlState("PQ008", () -> Pq.pause(ds, q, C, 0, 1, W,
                new Msg(424242, b.get(0).batchId(), "t", "x", null, "K", null, null, null), "0 seconds"));
        Db.assertSqlState("PQ004", () -> Pq.pause(ds, q, C, 0, 1, "intruder", find(b, "K-1"), "0 seconds"));
        Db.assertSqlState("PQ006", () -> Pq.pause(ds, q, C, 0, 2, W, find(b, "K-1"), "0 seconds"));
        assertTrue(Pq.pause(ds, q, C, 0, 1, W, find(b, "K-1"), "0 seconds"));
        // K-2 is set aside: no longer an event of the batch.
        Db.assertSqlState("PQ008", () -> Pq.pause(ds, q, C, 0, 1, W, find(b, "K-2"), "0 seconds"));
        ack(q);
        Db.assertSqlState("PQ006", () -> Db.exec(ds, "select * from pgque.blocked_keys(?, 'nobody')", q));
        Db.assertSqlState("PQ001", () -> Db.exec(ds, "select * from pgque.blocked_keys('no_such_queue')"));
        Db.assertSqlState("22023", () -> Db.exec(ds, "select pgque.retry_blocked_key(?, ?, 'L')", q, C));
        Db.assertSqlState("22023", () -> Db.exec(ds, "select pgque.retry_blocked_key(?, ?, null)", q, C));
        Db.assertSqlState("22023", () -> Db.exec(ds, "select pgque.dead_letter_blocked_key(?, ?, 'K', '')", q, C));
        Db.assertSqlState("22023", () -> Db.exec(ds, "select pgque.dead_letter_blocked_key(?, ?, 'L', 'why')", q, C));
        Db.assertSqlState("PQ006", () -> Db.exec(ds, "select pgque.dead_letter_blocked_key(?, 'nobody', 'K', 'why')", q));
        assertEquals(1, Pq.blockedKeys(ds, q, C).size(), "refused calls change nothing");
        assertNull(Pq.blockedKeys(ds, q, C).get(0).get("reason"));
    }

    /** A key that slot_of puts on slot {@code slot} of {@code n}. */
    private static String key(int n, int slot) {
        for (int i = 0; ; i++) {
            if (Pq.expectedSlot(ds, "key" + i, n) == slot) {
                return "key" + i;
            }
        }
    }

    @Test
    void theBlockedKeysOfOneSlotAreIndependent() throws Exception {
        String q = queue(1);
        send(q, "A-1", "B-1", "A-2", "B-2", "C-1");
        List<Msg> b1 = nextBatch(q);
        try (Connection c = ds.getConnection()) {
            assertTrue(Pq.pause(c, q, C, 0, 1, W, find(b1, "A-1"), "0 seconds", "a failed"));
            assertTrue(Pq.pause(c, q, C, 0, 1, W, find(b1, "B-2"), "1 hour", "b failed"));
        }
        assertEquals(List.of("B-1", "C-1"), payloads(Pq.receiveWholeBatch(ds, q, C, 0, 1, W, 100)));
        ack(q);
        assertEquals(List.of("a failed", "b failed"), Pq.blockedKeys(ds, q, C).stream().map(r -> r.get("reason")).toList());
        send(q, "A-3", "B-3", "C-2");
        assertEquals(List.of("A-1", "C-2"), payloads(redeliver(q)));
        ack(q);
        send(q, "A-4");
        assertEquals(List.of("A-2", "A-3", "A-4"), payloads(nextBatch(q)));
        ack(q);
        assertEquals(List.of("B"), Pq.blockedKeys(ds, q, C).stream().map(r -> r.get("partition_key")).toList());
        assertEquals(1L, Pq.blockedKeys(ds, q, C).get(0).get("set_aside"));
    }
}

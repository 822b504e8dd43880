/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.partition.Pq.Msg;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * ENGINE.md 6.4 (partition-key unit behaviours, one test per fact) plus the lease rules of 3.4
 * and every upstream fix adopted from 3.7: SKIP LOCKED claim, release refused while a batch is
 * open, atomic subscribe_partitioned with 1 <= n <= 256, finite TTL, clock_timestamp() leases,
 * and this project's paging addition read_batch_partitioned.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PartitionUnitBehaviourIT {

    private static DataSource ds;
    private static final AtomicInteger QUEUES = new AtomicInteger();

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("pkeys_unit").installEngine().superuser();
    }

    private static String newQueue(String prefix) {
        String q = prefix + "_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        return q;
    }

    private static String partitioned(String prefix, String consumer, int n) {
        String q = newQueue(prefix);
        Pq.subscribePartitioned(ds, q, consumer, n);
        return q;
    }

    /** A partitioned queue (consumer w, N=1) whose slot 0 holds an open batch of {@code events} events leased to w1. */
    private static List<Msg> openBatch(String q, int events) {
        for (int i = 0; i < events; i++) {
            Pq.send(ds, q, "evt", "e" + i, "k" + i);
        }
        Pq.tick(ds, q);
        assertNotNull(Pq.claim(ds, q, "w", 0, "w1"));
        List<Msg> batch = Pq.receive(ds, q, "w", 0, 1, "w1", 100);
        assertEquals(events, batch.size(), "open batch: " + batch);
        return batch;
    }

    // ================================================================== 6.4 bullets

    @Test
    void u64_receive_without_lease_raises_not_leased() {
        String q = partitioned("q_nolease", "w", 2);
        Db.assertSqlState("PQ005", () -> Pq.receive(ds, q, "w", 0, 2, "w1", 100));
    }

    @Test
    void u64_ack_by_non_owner_raises_fenced() {
        String q = partitioned("q_ackother", "w", 2);
        assertNotNull(Pq.claim(ds, q, "w", 0, "w1"));
        Db.assertSqlState("PQ004", () -> Pq.ack(ds, q, "w", 0, 2, "w2"));
    }

    @Test
    void u64_fencing_zombie_stalls_heir_gets_same_batch_zombie_ack_raises_heir_ack_succeeds() throws SQLException {
        String q = partitioned("q_fence", "w", 1);
        Pq.send(ds, q, "evt", "a", "k1");
        Pq.send(ds, q, "evt", "b", "k2");
        Pq.tick(ds, q);
        try (Connection zombie = ds.getConnection(); Connection heir = ds.getConnection()) {
            zombie.setAutoCommit(true);
            heir.setAutoCommit(true);
            Long ze = Pq.claim(zombie, q, "w", 0, "zombie", "1 second");
            assertNotNull(ze);
            List<Msg> zb = Pq.receive(zombie, q, "w", 0, 1, "zombie", 100);
            assertEquals(2, zb.size(), "zombie's batch");
            Db.exec(zombie, "select pg_sleep(1.2)"); // the zombie stalls past its TTL
            Long he = Pq.claim(heir, q, "w", 0, "heir", null);
            assertNotNull(he, "heir must take over the expired lease");
            assertTrue(he > ze, "heir epoch " + he + " > zombie epoch " + ze);
            List<Msg> hb = Pq.receive(heir, q, "w", 0, 1, "heir", 100);
            assertEquals(zb, hb, "heir must be re-issued the identical open batch");
            Db.assertSqlState("PQ004", () -> Pq.ack(zombie, q, "w", 0, 1, "zombie"));
            assertEquals(1, Pq.ack(heir, q, "w", 0, 1, "heir"));
        }
    }

    @Test
    void u64_retry_affinity_nacked_keyed_event_returns_on_its_own_slot_only() {
        int n = 4;
        String q = partitioned("q_retry", "w", n);
        String key = "tenant-retry";
        int home = Pq.expectedSlot(ds, key, n);
        long id = Pq.send(ds, q, "evt", "to-retry", key);
        for (int i = 0; i < 8; i++) {
            Pq.send(ds, q, "evt", "other" + i, "other-" + i);
        }
        Pq.tick(ds, q);
        for (int k = 0; k < n; k++) {
            if (k == home) {
                assertNotNull(Pq.claim(ds, q, "w", k, "w1"));
                List<Msg> batch = Pq.receiveWholeBatch(ds, q, "w", k, n, "w1", 100);
                Msg m = batch.stream().filter(x -> x.msgId() == id).findFirst().orElseThrow();
                assertEquals(1, Pq.nack(ds, q, "w", k, n, "w1", m, "0 seconds"));
                assertEquals(1, Pq.ack(ds, q, "w", k, n, "w1"));
                assertEquals(Boolean.TRUE, Pq.release(ds, q, "w", k, "w1"));
            } else {
                Pq.drainSlot(ds, q, "w", k, n, "w1", 100);
            }
        }
        assertTrue(Db.one(ds, Integer.class, "select pgque.maint_retry_events()") >= 1, "retry must be due");
        Pq.tick(ds, q);
        for (int k = 0; k < n; k++) {
            List<Msg> got = Pq.drainSlot(ds, q, "w", k, n, "w1", 100);
            List<Msg> again = got.stream().filter(x -> x.msgId() == id).toList();
            if (k == home) {
                assertEquals(1, again.size(), "home slot " + k + " must get the retried event once: " + got);
                assertNotNull(again.get(0).retryCount());
                assertTrue(again.get(0).retryCount() >= 1, "retry_count: " + again.get(0));
                assertEquals(key, again.get(0).extra1());
            } else {
                assertEquals(List.of(), again, "retried event leaked onto slot " + k);
            }
        }
    }

    @Test
    void u64_plain_receive_on_slot_consumer_raises_mentioning_receive_partitioned() {
        String q = partitioned("q_plainrecv", "w", 2);
        var e = Db.assertSqlState("PQ009", () -> Db.rows(ds, "select * from pgque.receive(?::text, ?::text)", q, "w#0/2"));
        assertTrue(e.getMessage().contains("receive_partitioned"), e.getMessage());
    }

    @Test
    void u64_subscribe_with_hash_in_name_raises_and_creates_no_consumer() {
        String q = newQueue("q_hashname");
        Db.assertSqlError(() -> Db.exec(ds, "select pgque.subscribe(?::text, ?::text)", q, "team#1"));
        assertEquals(0, Db.count(ds, "select count(*) from pgque.consumer where co_name = 'team#1'"));
    }

    @Test
    void u64_plain_ack_on_slot_batch_raises_naming_ack_partitioned() {
        String q = partitioned("q_plainack", "w", 1);
        long batch = openBatch(q, 2).get(0).batchId();
        var e = Db.assertSqlState("PQ009", () -> Db.exec(ds, "select pgque.ack(?::bigint)", batch));
        assertTrue(e.getMessage().contains("ack_partitioned"), e.getMessage());
    }

    @Test
    void u64_plain_nack_on_slot_batch_raises_naming_nack_partitioned() {
        String q = partitioned("q_plainnack", "w", 1);
        Msg m = openBatch(q, 2).get(0);
        var e = Db.assertSqlState("PQ009", () -> Db.exec(ds, "select pgque.nack(?::bigint, " + Pq.MESSAGE_ROW + ")",
                prepend(m.batchId(), Pq.messageArgs(m))));
        assertTrue(e.getMessage().contains("nack_partitioned"), e.getMessage());
    }

    @Test
    void u64_claim_rejects_ttl_below_one_second() {
        String q = partitioned("q_ttl", "w", 2);
        Db.assertSqlState("22023", () -> Pq.claim(ds, q, "w", 0, "w1", "500 milliseconds"));
    }

    @Test
    void u64_claim_rejects_empty_worker() {
        String q = partitioned("q_emptyw", "w", 2);
        Db.assertSqlState("22023", () -> Pq.claim(ds, q, "w", 0, "", null));
    }

    @Test
    void u64_claim_rejects_null_worker() {
        String q = partitioned("q_nullw", "w", 2);
        Db.assertSqlState("22023", () -> Pq.claim(ds, q, "w", 0, null, null));
    }

    @Test
    void u64_claim_rejects_never_partitioned_consumer() {
        String q = newQueue("q_notpart");
        Db.exec(ds, "select pgque.subscribe(?::text, ?::text)", q, "plain");
        var e = Db.assertSqlState("PQ006", () -> Pq.claim(ds, q, "plain", 0, "w1", null));
        assertTrue(e.getMessage().contains("not a partitioned consumer"), e.getMessage());
    }

    @Test
    void u64_view_epoch_increases_on_expired_lease_takeover() {
        String q = partitioned("q_viewepoch", "w", 2);
        Db.inTx(ds, c -> {
            assertNotNull(Pq.claim(c, q, "w", 0, "w-old", "1 second"));
            long before = epochInView(c, q, 0);
            Db.exec(c, "select pg_sleep(1.2)");
            assertNotNull(Pq.claim(c, q, "w", 0, "w-new", null));
            long after = epochInView(c, q, 0);
            assertTrue(after > before, "view epoch " + before + " -> " + after);
            return null;
        });
    }

    private static long epochInView(Connection c, String q, int slot) throws SQLException {
        return Db.one(c, Long.class, "select epoch::bigint from pgque.partition_slot_status where queue_name = ? and consumer = 'w' and slot = ?",
                q, slot);
    }

    @Test
    void u64_receive_on_empty_slot_moves_lease_until_forward() {
        String q = partitioned("q_heartbeat", "w", 2);
        assertNotNull(Pq.claim(ds, q, "w", 0, "w1", "30 seconds"));
        OffsetDateTime before = leaseUntil(q, 0);
        assertEquals(List.of(), Pq.receive(ds, q, "w", 0, 2, "w1", 100));
        OffsetDateTime after = leaseUntil(q, 0);
        assertTrue(after.isAfter(before), "lease_until " + before + " -> " + after);
    }

    private static OffsetDateTime leaseUntil(String q, int slot) {
        return Db.one(ds, OffsetDateTime.class,
                "select lease_until from pgque.partition_slot_status where queue_name = ? and consumer = 'w' and slot = ?", q, slot);
    }

    @Test
    void u64_pending_events_at_least_sent_before_drain_and_zero_after() {
        String q = partitioned("q_pending", "w", 2);
        for (int i = 0; i < 3; i++) {
            Pq.send(ds, q, "evt", "p" + i, "key-" + i);
        }
        Pq.tick(ds, q);
        // an estimate from the ticks' sequence readings, which (as in PgQ) do not count a fresh
        // queue's very first event
        for (Map<String, Object> r : Pq.status(ds, q, "w")) {
            assertTrue(((Number) r.get("pending_events")).longValue() >= 2, "pre-drain " + r);
        }
        Pq.drainSlot(ds, q, "w", 0, 2, "w1", 100);
        Pq.drainSlot(ds, q, "w", 1, 2, "w1", 100);
        for (Map<String, Object> r : Pq.status(ds, q, "w")) {
            assertEquals(0L, ((Number) r.get("pending_events")).longValue(), "post-drain " + r);
        }
    }

    @Test
    void u64_events_behind_a_stopped_ticker_show_as_unticked() {
        String q = partitioned("q_unticked", "w", 2);
        Pq.send(ds, q, "evt", "before", "key-0");
        Pq.tick(ds, q);
        Pq.drainSlot(ds, q, "w", 0, 2, "w1", 100);
        Pq.drainSlot(ds, q, "w", 1, 2, "w1", 100);
        // Nothing ticks any more: these wait in no batch, and no slot's cursor can reach them.
        for (int i = 0; i < 3; i++) {
            Pq.send(ds, q, "evt", "after" + i, "key-" + i);
        }
        for (Map<String, Object> r : Pq.status(ds, q, "w")) {
            assertEquals(0L, ((Number) r.get("pending_events")).longValue(), "nothing ticked is pending " + r);
            assertEquals(3L, ((Number) r.get("unticked_events")).longValue(), "behind the ticker " + r);
            assertNotNull(r.get("ticker_lag"), "the last tick's age " + r);
        }
        Pq.tick(ds, q);
        for (Map<String, Object> r : Pq.status(ds, q, "w")) {
            assertEquals(0L, ((Number) r.get("unticked_events")).longValue(), "all ticked " + r);
            assertTrue(((Number) r.get("pending_events")).longValue() >= 3, "now pending " + r);
        }
    }

    // ================================================================== routing (3.1)

    @Test
    void routing_pinned_examples_for_n2() {
        assertEquals(0, Pq.expectedSlot(ds, "tenant-a", 2));
        assertEquals(1, Pq.expectedSlot(ds, "tenant-b", 2));
        assertEquals(1, Pq.expectedSlot(ds, "tenant-c", 2));
        String q = partitioned("q_pinned", "w", 2);
        for (String k : List.of("tenant-a", "tenant-b", "tenant-c")) {
            Pq.send(ds, q, "evt", k, k);
        }
        Pq.tick(ds, q);
        List<String> slot0 = Pq.drainSlot(ds, q, "w", 0, 2, "w1", 100).stream().map(Msg::extra1).toList();
        List<String> slot1 = Pq.drainSlot(ds, q, "w", 1, 2, "w1", 100).stream().map(Msg::extra1).toList();
        assertEquals(List.of("tenant-a"), slot0);
        assertEquals(List.of("tenant-b", "tenant-c"), slot1);
    }

    @Test
    void routing_null_key_goes_to_slot_0() {
        String q = partitioned("q_nullkey", "w", 3);
        long id = Pq.send(ds, q, "evt", "no key", null);
        Pq.tick(ds, q);
        List<Msg> slot0 = Pq.drainSlot(ds, q, "w", 0, 3, "w1", 100);
        assertEquals(List.of(id), slot0.stream().map(Msg::msgId).toList());
        assertEquals(List.of(), Pq.drainSlot(ds, q, "w", 1, 3, "w1", 100));
        assertEquals(List.of(), Pq.drainSlot(ds, q, "w", 2, 3, "w1", 100));
    }

    @Test
    void routing_keyed_send_events_batch_routes_each_event_by_its_own_key() {
        int n = 4;
        String q = partitioned("q_sendevents", "w", n);
        String[] keys = {"a", "b", "c", "d", "e", "f", null, "a"};
        String[] payloads = new String[keys.length];
        for (int i = 0; i < keys.length; i++) {
            payloads[i] = "p" + i;
        }
        Long[] ids = Db.with(ds, c -> {
            try (var ps = c.prepareStatement("select pgque.send_events(?::text, null::text[], ?::text[], ?::text[])")) {
                Db.bind(c, ps, q, payloads, keys);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return (Long[]) rs.getArray(1).getArray();
                }
            }
        });
        assertEquals(keys.length, ids.length);
        Pq.tick(ds, q);
        Map<Long, Integer> slotOfId = new HashMap<>();
        for (int k = 0; k < n; k++) {
            for (Msg m : Pq.drainSlot(ds, q, "w", k, n, "w1", 100)) {
                slotOfId.put(m.msgId(), k);
            }
        }
        for (int i = 0; i < keys.length; i++) {
            assertEquals(Pq.expectedSlot(ds, keys[i], n), slotOfId.get(ids[i]), "event " + i + " key " + keys[i]);
        }
    }

    // ================================================================== claim / release (3.4, 3.7)

    @Test
    void claim_rejects_non_finite_ttl() {
        // Infinite intervals exist from PostgreSQL 17 on; before that no caller can pass one.
        assumeTrue(Db.serverMajor(ds) >= 17, "no infinite intervals before PostgreSQL 17");
        String q = partitioned("q_infttl", "w", 2);
        Db.assertSqlState("22023", () -> Pq.claim(ds, q, "w", 0, "w1", "infinity"));
    }

    @Test
    void claim_of_slot_out_of_range_raises_partition_mismatch() {
        String q = partitioned("q_range", "w", 2);
        Db.assertSqlState("PQ006", () -> Pq.claim(ds, q, "w", 2, "w1", null));
        Db.assertSqlState("PQ006", () -> Pq.claim(ds, q, "w", -1, "w1", null));
    }

    @Test
    void release_refused_while_batch_open_allowed_after_ack() {
        String q = partitioned("q_relopen", "w", 1);
        openBatch(q, 2);
        Db.assertSqlError(() -> Pq.release(ds, q, "w", 0, "w1"));
        assertEquals("w1", Pq.status(ds, q, "w", 0).get("lease_owner"), "the refused release must keep the lease");
        assertEquals(1, Pq.ack(ds, q, "w", 0, 1, "w1"));
        assertEquals(Boolean.TRUE, Pq.release(ds, q, "w", 0, "w1"));
    }

    @Test
    void release_keeps_epoch_so_the_next_takeover_is_larger() {
        String q = partitioned("q_relepoch", "w", 2);
        Long e1 = Pq.claim(ds, q, "w", 0, "w1");
        assertEquals(Boolean.TRUE, Pq.release(ds, q, "w", 0, "w1"));
        assertEquals(e1, ((Number) Pq.status(ds, q, "w", 0).get("epoch")).longValue(), "release keeps the epoch");
        Long e2 = Pq.claim(ds, q, "w", 0, "w2");
        assertNotNull(e2);
        assertTrue(e2 > e1, e1 + " -> " + e2);
    }

    @Test
    void claim_by_owner_after_expiry_renews_with_the_same_epoch() {
        String q = partitioned("q_ownexp", "w", 2);
        Db.inTx(ds, c -> {
            Long e1 = Pq.claim(c, q, "w", 0, "w1", "1 second");
            Db.exec(c, "select pg_sleep(1.2)");
            assertEquals(e1, Pq.claim(c, q, "w", 0, "w1", null), "owner renews (nobody took over)");
            return null;
        });
    }

    @Test
    void grace_rule_expired_lease_of_same_worker_is_renewed_by_receive() {
        String q = partitioned("q_grace", "w", 1);
        Pq.send(ds, q, "evt", "x", "k");
        Pq.tick(ds, q);
        Db.inTx(ds, c -> {
            assertNotNull(Pq.claim(c, q, "w", 0, "w1", "1 second"));
            Db.exec(c, "select pg_sleep(1.2)");
            assertEquals(1, Pq.receive(c, q, "w", 0, 1, "w1", 100).size(), "no takeover happened: the owner goes on");
            assertEquals(Boolean.TRUE, Db.one(c, Boolean.class,
                    "select lease_until > clock_timestamp() from pgque.partition_slot_status where queue_name = ? and consumer = 'w' and slot = 0", q),
                    "receive must renew the lease");
            return null;
        });
    }

    @Test
    void view_does_not_show_the_owner_of_an_expired_lease() {
        String q = partitioned("q_viewexp", "w", 2);
        Db.inTx(ds, c -> {
            assertNotNull(Pq.claim(c, q, "w", 1, "w1", "1 second"));
            Db.exec(c, "select pg_sleep(1.2)");
            assertNull(Db.one(c, String.class,
                    "select lease_owner from pgque.partition_slot_status where queue_name = ? and consumer = 'w' and slot = 1", q));
            return null;
        });
    }

    @Test
    void nack_by_non_owner_raises_fenced() {
        String q = partitioned("q_nackother", "w", 1);
        Msg m = openBatch(q, 1).get(0);
        Db.assertSqlState("PQ004", () -> Pq.nack(ds, q, "w", 0, 1, "w2", m, "0 seconds"));
    }

    @Test
    void ack_partitioned_without_open_batch_returns_0() {
        String q = partitioned("q_ack0", "w", 2);
        assertNotNull(Pq.claim(ds, q, "w", 0, "w1"));
        assertEquals(0, Pq.ack(ds, q, "w", 0, 2, "w1"));
    }

    @Test
    void nack_partitioned_without_open_batch_raises() {
        String q = partitioned("q_nack0", "w", 1);
        Msg m = openBatch(q, 1).get(0);
        assertEquals(1, Pq.ack(ds, q, "w", 0, 1, "w1"));
        Db.assertSqlError(() -> Pq.nack(ds, q, "w", 0, 1, "w1", m, "0 seconds"));
    }

    @Test
    void receive_partitioned_rejects_max_below_1() {
        String q = partitioned("q_max0", "w", 2);
        assertNotNull(Pq.claim(ds, q, "w", 0, "w1"));
        Db.assertSqlState("22023", () -> Pq.receive(ds, q, "w", 0, 2, "w1", 0));
    }

    // ================================================================== paging (addition)

    @Test
    void read_batch_partitioned_pages_through_the_whole_open_batch() {
        String q = partitioned("q_paging", "w", 1);
        List<Msg> all = new ArrayList<>(openBatchWithMax(q, 5, 2));
        assertEquals(2, all.size());
        List<Msg> p2 = Pq.readBatch(ds, q, "w", 0, 1, "w1", all.get(1).msgId(), 2);
        assertEquals(2, p2.size());
        all.addAll(p2);
        List<Msg> p3 = Pq.readBatch(ds, q, "w", 0, 1, "w1", all.get(3).msgId(), 2);
        assertEquals(1, p3.size());
        all.addAll(p3);
        assertEquals(List.of(), Pq.readBatch(ds, q, "w", 0, 1, "w1", all.get(4).msgId(), 2));
        for (int i = 1; i < all.size(); i++) {
            assertTrue(all.get(i).msgId() > all.get(i - 1).msgId(), "pages in msg_id order: " + all);
            assertEquals(all.get(0).batchId(), all.get(i).batchId(), "one batch: " + all);
        }
        assertEquals(1, Pq.ack(ds, q, "w", 0, 1, "w1"));
        assertEquals(List.of(), Pq.receive(ds, q, "w", 0, 1, "w1", 100));
    }

    private static List<Msg> openBatchWithMax(String q, int events, int max) {
        for (int i = 0; i < events; i++) {
            Pq.send(ds, q, "evt", "e" + i, "k" + i);
        }
        Pq.tick(ds, q);
        assertNotNull(Pq.claim(ds, q, "w", 0, "w1"));
        return Pq.receive(ds, q, "w", 0, 1, "w1", max);
    }

    @Test
    void read_batch_partitioned_only_returns_the_slots_own_events() {
        int n = 2;
        String q = partitioned("q_pagefilter", "w", n);
        for (int i = 0; i < 20; i++) {
            Pq.send(ds, q, "evt", "e" + i, "key-" + i);
        }
        Pq.tick(ds, q);
        for (int k = 0; k < n; k++) {
            assertNotNull(Pq.claim(ds, q, "w", k, "w1"));
            List<Msg> batch = Pq.receiveWholeBatch(ds, q, "w", k, n, "w1", 3);
            for (Msg m : batch) {
                assertEquals(k, Pq.expectedSlot(ds, m.extra1(), n), "slot " + k + " page holds " + m);
            }
            assertEquals(1, Pq.ack(ds, q, "w", k, n, "w1"));
        }
    }

    @Test
    void read_batch_partitioned_by_non_owner_is_fenced() {
        String q = partitioned("q_pagefence", "w", 1);
        Msg m = openBatch(q, 3).get(0);
        Db.assertSqlState("PQ004", () -> Pq.readBatch(ds, q, "w", 0, 1, "intruder", m.msgId(), 10));
    }

    @Test
    void plain_read_batch_on_slot_batch_raises_wrong_api() {
        String q = partitioned("q_plainread", "w", 1);
        Msg m = openBatch(q, 2).get(0);
        Db.assertSqlState("PQ009", () -> Db.rows(ds, "select * from pgque.read_batch(?::bigint)", m.batchId()));
    }

    // ================================================================== subscription set-up (3.1, 3.7)

    @Test
    void subscribe_partitioned_creates_all_slots_at_one_shared_tick() {
        String q = newQueue("q_shared");
        Pq.tick(ds, q);
        Pq.tick(ds, q);
        Pq.subscribePartitioned(ds, q, "w", 4);
        List<Map<String, Object>> subs = Db.rows(ds,
                "select c.co_name, s.sub_last_tick from pgque.subscription s join pgque.consumer c on c.co_id = s.sub_consumer"
                        + " join pgque.queue q on q.queue_id = s.sub_queue where q.queue_name = ? order by c.co_name", q);
        assertEquals(List.of("w#0/4", "w#1/4", "w#2/4", "w#3/4"), subs.stream().map(r -> r.get("co_name")).toList());
        assertEquals(1, subs.stream().map(r -> r.get("sub_last_tick")).distinct().count(), "one shared start tick: " + subs);
        assertEquals(4, Pq.status(ds, q, "w").size());
    }

    @Test
    void subscribe_partitioned_twice_with_same_n_is_idempotent() {
        String q = partitioned("q_idemsub", "w", 3);
        Pq.subscribePartitioned(ds, q, "w", 3);
        assertEquals(3, Pq.status(ds, q, "w").size());
    }

    @Test
    void subscribe_partitioned_with_other_n_raises_partition_mismatch() {
        String q = partitioned("q_othern", "w", 3);
        Db.assertSqlState("PQ006", () -> Pq.subscribePartitioned(ds, q, "w", 4));
        assertEquals(3, Pq.status(ds, q, "w").size());
    }

    @Test
    void subscribe_partitioned_n_must_be_1_to_256() {
        String q = newQueue("q_nrange");
        Db.assertSqlState("22023", () -> Pq.subscribePartitioned(ds, q, "w0", 0));
        Db.assertSqlState("22023", () -> Pq.subscribePartitioned(ds, q, "w257", 257));
        Db.assertSqlState("22023", () -> Db.exec(ds, "select pgque.subscribe_partitioned(?::text, ?::text, null::int)", q, "wnull"));
        Pq.subscribePartitioned(ds, q, "w1", 1);
        Pq.subscribePartitioned(ds, q, "w256", 256);
        assertEquals(256, Pq.status(ds, q, "w256").size());
    }

    @Test
    void subscribe_slot_out_of_range_or_hash_in_name_is_rejected() {
        String q = newQueue("q_slotargs");
        Db.assertSqlState("PQ006", () -> Pq.subscribeSlot(ds, q, "w", 2, 2));
        Db.assertSqlError(() -> Pq.subscribeSlot(ds, q, "w#x", 0, 2));
    }

    @Test
    void unsubscribe_partitioned_removes_slots_leases_and_pin() {
        String q = partitioned("q_unsub", "w", 3);
        assertNotNull(Pq.claim(ds, q, "w", 1, "w1"));
        Db.exec(ds, "select pgque.unsubscribe_partitioned(?::text, ?::text)", q, "w");
        assertEquals(0, Db.count(ds, "select count(*) from pgque.subscription s join pgque.queue q on q.queue_id = s.sub_queue"
                + " where q.queue_name = ?", q));
        assertEquals(0, Db.count(ds, "select count(*) from pgque.partition_slot s join pgque.queue q on q.queue_id = s.queue_id"
                + " where q.queue_name = ?", q));
        assertEquals(0, Db.count(ds, "select count(*) from pgque.partition_consumer p join pgque.queue q on q.queue_id = p.queue_id"
                + " where q.queue_name = ?", q));
        assertEquals(0, Pq.status(ds, q, "w").size());
        assertEquals(1, Db.one(ds, Integer.class, "select pgque.drop_queue(?::text)", q));
    }

    @Test
    void unsubscribe_slot_on_a_non_partitioned_consumer_is_a_no_op() {
        String q = newQueue("q_unsubplain");
        Db.exec(ds, "select pgque.subscribe(?::text, ?::text)", q, "plain");
        Db.exec(ds, "select pgque.unsubscribe_slot(?::text, ?::text, ?::int)", q, "plain", 0);
        assertEquals(1, Db.count(ds, "select count(*) from pgque.subscription s join pgque.queue q on q.queue_id = s.sub_queue"
                + " where q.queue_name = ?", q));
    }

    @Test
    void subscribe_partitioned_rejects_a_half_set_up_consumer() {
        String q = newQueue("q_half");
        Pq.subscribeSlot(ds, q, "w", 0, 2);
        Db.assertSqlState("PQ006", () -> Pq.subscribePartitioned(ds, q, "w", 2));
    }

    @Test
    void subscribe_partitioned_rejects_slot_names_left_from_another_n() {
        String q = newQueue("q_legacy");
        // A registration under the slot naming scheme without any pin, as an engine before 0.4.0
        // let register_consumer() make (the internal function, as the owner, does it here).
        Db.exec(ds, "select pgque.sub_register(?::text, ?::text, null)", q, "w#0/3");
        Db.assertSqlState("PQ006", () -> Pq.subscribePartitioned(ds, q, "w", 2));
    }

    @Test
    void plain_unsubscribe_of_a_slot_consumer_raises_wrong_api() {
        String q = partitioned("q_plainunsub", "w", 2);
        Db.assertSqlState("PQ009", () -> Db.exec(ds, "select pgque.unsubscribe(?::text, ?::text)", q, "w#0/2"));
        assertEquals(2, Pq.status(ds, q, "w").size());
    }

    private static long retryRows(String q) {
        return Db.count(ds, "select count(*) from pgque.retry_queue r join pgque.queue q on q.queue_id = r.ev_queue"
                + " where q.queue_name = ?", q);
    }

    @Test
    void unsubscribe_slot_drops_the_slots_retry_rows() {
        String q = partitioned("q_unsubretry", "w", 1);
        Msg m = openBatch(q, 1).get(0);
        assertEquals(1, Pq.nack(ds, q, "w", 0, 1, "w1", m, "1 hour"));
        assertEquals(1, Pq.ack(ds, q, "w", 0, 1, "w1"));
        assertEquals(1, retryRows(q));
        Db.exec(ds, "select pgque.unsubscribe_slot(?::text, ?::text, ?::int)", q, "w", 0);
        assertEquals(0, retryRows(q));
    }

    @Test
    void unsubscribe_partitioned_drops_the_slots_retry_rows() {
        String q = partitioned("q_unsubpretry", "w", 1);
        Msg m = openBatch(q, 1).get(0);
        assertEquals(1, Pq.nack(ds, q, "w", 0, 1, "w1", m, "1 hour"));
        assertEquals(1, Pq.ack(ds, q, "w", 0, 1, "w1"));
        assertEquals(1, retryRows(q));
        Db.exec(ds, "select pgque.unsubscribe_partitioned(?::text, ?::text)", q, "w");
        assertEquals(0, retryRows(q));
    }

    private static Object[] prepend(Object first, Object[] rest) {
        Object[] out = new Object[rest.length + 1];
        out[0] = first;
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
    }
}

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ENGINE.md 6.1: the US-12 partition-keys acceptance contract, one test per item. Items that
 * share a scenario (12.2, 12.3) share one memoised run of it; every other item builds its own
 * queue so that tests stay independent of each other and of their order.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PartitionKeysAcceptanceIT {

    private static DataSource ds;
    private static final AtomicInteger QUEUES = new AtomicInteger();

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("pkeys_acc").installEngine().superuser();
    }

    private static String newQueue(String prefix) {
        String q = prefix + "_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        return q;
    }

    /** A queue with consumer {@code cw} subscribed slot by slot (as the acceptance script does). */
    private static String queueWithSlots(String prefix, int n) {
        String q = newQueue(prefix);
        for (int k = 0; k < n; k++) {
            Pq.subscribeSlot(ds, q, "cw", k, n);
        }
        return q;
    }

    // ------------------------------------------------------------------ 12.1

    @Test
    void us12_1_keyed_sends_reach_plain_consumer_with_key_in_extra1() {
        String q = newQueue("q121");
        Db.exec(ds, "select pgque.subscribe(?::text, ?::text)", q, "reader");
        Pq.sendJson(ds, q, "evt", "{\"n\": 1}", "tenant-xyz");
        Pq.send(ds, q, "evt", "plain text payload", "tenant-xyz");
        Pq.tick(ds, q);
        List<Msg> got = Db.with(ds, c -> Pq.query(c, "select * from pgque.receive(?::text, ?::text, ?::int)", q, "reader", 100));
        assertEquals(2, got.size(), "plain receive must see both keyed events: " + got);
        for (Msg m : got) {
            assertEquals("tenant-xyz", m.extra1());
        }
    }

    // ------------------------------------------------------------------ 12.2 (N=2)

    private static Map<Integer, List<Msg>> scenario122;

    private static synchronized Map<Integer, List<Msg>> scenario122() {
        if (scenario122 == null) {
            String q = queueWithSlots("q122", 2);
            for (String key : List.of("tenant-A", "tenant-B", "tenant-A", "tenant-B", "tenant-A")) {
                Pq.send(ds, q, "evt", key + " payload", key);
            }
            Pq.tick(ds, q);
            Map<Integer, List<Msg>> bySlot = new HashMap<>();
            for (int k = 0; k < 2; k++) {
                bySlot.put(k, Pq.drainSlot(ds, q, "cw", k, 2, "acc-w", 100));
            }
            scenario122 = bySlot;
        }
        return scenario122;
    }

    private static List<Msg> keyed(List<Msg> msgs, String key) {
        return msgs.stream().filter(m -> key.equals(m.extra1())).collect(Collectors.toList());
    }

    @Test
    void us12_2_tenantA_lands_on_its_hash_slot() {
        int slotA = Pq.expectedSlot(ds, "tenant-A", 2);
        assertEquals(3, keyed(scenario122().get(slotA), "tenant-A").size(),
                "all three tenant-A events on slot " + slotA + ": " + scenario122());
    }

    @Test
    void us12_2_no_tenantA_event_on_the_other_slot() {
        int other = 1 - Pq.expectedSlot(ds, "tenant-A", 2);
        assertEquals(List.of(), keyed(scenario122().get(other), "tenant-A"));
    }

    @Test
    void us12_2_tenantA_delivered_in_strictly_increasing_msg_id_order() {
        int slotA = Pq.expectedSlot(ds, "tenant-A", 2);
        List<Msg> a = keyed(scenario122().get(slotA), "tenant-A");
        for (int i = 1; i < a.size(); i++) {
            assertTrue(a.get(i).msgId() > a.get(i - 1).msgId(), "delivery order of tenant-A: " + a);
        }
    }

    // ------------------------------------------------------------------ 12.3 (N=3)

    private static Map<Integer, List<Msg>> scenario123;

    private static synchronized Map<Integer, List<Msg>> scenario123() {
        if (scenario123 == null) {
            String q = queueWithSlots("q123", 3);
            for (int round = 0; round < 2; round++) {
                for (int k = 1; k <= 6; k++) {
                    Pq.send(ds, q, "evt", "r" + round, "key-" + k);
                }
            }
            Pq.tick(ds, q);
            Map<Integer, List<Msg>> bySlot = new HashMap<>();
            for (int k = 0; k < 3; k++) {
                bySlot.put(k, Pq.drainSlot(ds, q, "cw", k, 3, "acc-w", 100));
            }
            scenario123 = bySlot;
        }
        return scenario123;
    }

    @Test
    void us12_3_union_of_slots_has_exactly_12_distinct_events() {
        Set<Long> ids = new HashSet<>();
        scenario123().values().forEach(l -> l.forEach(m -> ids.add(m.msgId())));
        assertEquals(12, ids.size(), "distinct msg_ids over the three slots: " + scenario123());
    }

    @Test
    void us12_3_no_event_delivered_by_more_than_one_slot() {
        Map<Long, Set<Integer>> slotsOf = new HashMap<>();
        scenario123().forEach((slot, l) -> l.forEach(m -> slotsOf.computeIfAbsent(m.msgId(), x -> new HashSet<>()).add(slot)));
        slotsOf.forEach((id, slots) -> assertEquals(1, slots.size(), "msg " + id + " delivered on slots " + slots));
    }

    @Test
    void us12_3_every_event_on_the_slot_of_its_key_hash() {
        scenario123().forEach((slot, l) -> {
            for (Msg m : l) {
                assertEquals(Pq.expectedSlot(ds, m.extra1(), 3), slot, "key " + m.extra1() + " (msg " + m.msgId() + ")");
            }
        });
    }

    // ------------------------------------------------------------------ 12.4 (N=1)

    @Test
    void us12_4_rereceive_before_ack_returns_the_identical_batch() {
        String q = queueWithSlots("q124", 1);
        Pq.send(ds, q, "evt", "one", "k1");
        Pq.send(ds, q, "evt", "two", "k2");
        Pq.tick(ds, q);
        assertNotNull(Pq.claim(ds, q, "cw", 0, "acc-w"));
        List<Msg> first = Pq.receive(ds, q, "cw", 0, 1, "acc-w", 100);
        List<Msg> second = Pq.receive(ds, q, "cw", 0, 1, "acc-w", 100);
        assertEquals(2, first.size(), "first receive: " + first);
        assertEquals(ids(first), ids(second), "second receive without ack must re-issue the same batch");
        assertEquals(first.get(0).batchId(), second.get(0).batchId());
    }

    private static List<Long> ids(List<Msg> l) {
        List<Long> out = new ArrayList<>();
        l.forEach(m -> out.add(m.msgId()));
        return out;
    }

    // ------------------------------------------------------------------ 12.5 (leases)

    @Test
    void us12_5_claim_of_free_slot_returns_an_epoch() {
        String q = queueWithSlots("q125a", 2);
        assertNotNull(Pq.claim(ds, q, "cw", 0, "acc-a"));
    }

    @Test
    void us12_5_claim_of_live_lease_by_other_worker_returns_null() {
        String q = queueWithSlots("q125b", 2);
        assertNotNull(Pq.claim(ds, q, "cw", 0, "acc-a"));
        assertNull(Pq.claim(ds, q, "cw", 0, "acc-b"));
    }

    @Test
    void us12_5_reclaim_by_owner_renews_with_the_same_epoch() {
        String q = queueWithSlots("q125c", 2);
        Long e1 = Pq.claim(ds, q, "cw", 0, "acc-a");
        assertNotNull(e1);
        assertEquals(e1, Pq.claim(ds, q, "cw", 0, "acc-a"));
    }

    @Test
    void us12_5_release_by_non_owner_false_by_owner_true() {
        String q = queueWithSlots("q125d", 2);
        assertNotNull(Pq.claim(ds, q, "cw", 0, "acc-a"));
        assertEquals(Boolean.FALSE, Pq.release(ds, q, "cw", 0, "acc-b"));
        assertEquals(Boolean.TRUE, Pq.release(ds, q, "cw", 0, "acc-a"));
    }

    @Test
    void us12_5_released_slot_can_be_claimed_again() {
        String q = queueWithSlots("q125e", 2);
        assertNotNull(Pq.claim(ds, q, "cw", 0, "acc-a"));
        assertEquals(Boolean.TRUE, Pq.release(ds, q, "cw", 0, "acc-a"));
        assertNotNull(Pq.claim(ds, q, "cw", 0, "acc-b"));
    }

    @Test
    void us12_5_expired_lease_taken_over_with_larger_epoch_after_sleep_in_same_transaction() {
        String q = queueWithSlots("q125f", 2);
        Db.inTx(ds, c -> {
            Long dead = Pq.claim(c, q, "cw", 1, "acc-dead", "1 second");
            assertNotNull(dead, "claim by acc-dead");
            assertNull(Pq.claim(c, q, "cw", 1, "acc-heir", null), "heir must not take a live lease");
            Db.exec(c, "select pg_sleep(1.2)");
            Long heir = Pq.claim(c, q, "cw", 1, "acc-heir", null);
            assertNotNull(heir, "heir's claim after the TTL (clock_timestamp() lease math)");
            assertTrue(heir > dead, "heir epoch " + heir + " must exceed dead worker's " + dead);
            return null;
        });
    }

    // ------------------------------------------------------------------ 12.6 (status view)

    @Test
    void us12_6_view_has_one_row_per_slot_with_n() {
        String q = queueWithSlots("q126a", 2);
        List<Map<String, Object>> rows = Pq.status(ds, q, "cw");
        assertEquals(2, rows.size(), "view rows: " + rows);
        assertEquals(0, ((Number) rows.get(0).get("slot")).intValue());
        assertEquals(1, ((Number) rows.get(1).get("slot")).intValue());
        for (Map<String, Object> r : rows) {
            assertEquals(2, ((Number) r.get("n")).intValue(), "row " + r);
        }
    }

    @Test
    void us12_6_no_live_lease_no_owner_shown() {
        String q = queueWithSlots("q126b", 2);
        for (Map<String, Object> r : Pq.status(ds, q, "cw")) {
            assertNull(r.get("lease_owner"), "row " + r);
        }
    }

    @Test
    void us12_6_pending_events_never_negative() {
        String q = queueWithSlots("q126c", 2);
        Pq.send(ds, q, "evt", "x", "tenant-A");
        Pq.tick(ds, q);
        Pq.drainSlot(ds, q, "cw", 0, 2, "acc-w", 100);
        for (Map<String, Object> r : Pq.status(ds, q, "cw")) {
            assertNotNull(r.get("pending_events"), "row " + r);
            assertTrue(((Number) r.get("pending_events")).longValue() >= 0, "row " + r);
        }
    }

    @Test
    void us12_6_a_slot_not_subscribed_yet_shows_unsubscribed_with_unknown_lag() {
        String q = newQueue("q126f");
        Pq.subscribeSlot(ds, q, "cw", 0, 2);
        Pq.send(ds, q, "evt", "x", "tenant-A");
        Pq.send(ds, q, "evt", "y", "tenant-B");
        Pq.tick(ds, q);
        Map<String, Object> subscribed = Pq.status(ds, q, "cw", 0);
        assertEquals(Boolean.TRUE, subscribed.get("subscribed"), subscribed.toString());
        assertTrue(((Number) subscribed.get("pending_events")).longValue() > 0, subscribed.toString());
        // Reading 0 here would tell an operator the missing slot is caught up.
        Map<String, Object> missing = Pq.status(ds, q, "cw", 1);
        assertEquals(Boolean.FALSE, missing.get("subscribed"), missing.toString());
        assertNull(missing.get("last_tick"), missing.toString());
        assertNull(missing.get("pending_events"), missing.toString());
        assertNull(missing.get("backlog_events"), missing.toString());
    }

    @Test
    void us12_6_claim_shows_owner_on_that_slot_only() {
        String q = queueWithSlots("q126d", 2);
        assertNotNull(Pq.claim(ds, q, "cw", 0, "acc-a"));
        assertEquals("acc-a", Pq.status(ds, q, "cw", 0).get("lease_owner"));
        assertNull(Pq.status(ds, q, "cw", 1).get("lease_owner"));
    }

    @Test
    void us12_6_release_clears_owner_in_view() {
        String q = queueWithSlots("q126e", 2);
        assertNotNull(Pq.claim(ds, q, "cw", 0, "acc-a"));
        assertEquals(Boolean.TRUE, Pq.release(ds, q, "cw", 0, "acc-a"));
        assertNull(Pq.status(ds, q, "cw", 0).get("lease_owner"));
    }

    // ------------------------------------------------------------------ 12.7 (pin)

    @Test
    void us12_7_subscribe_slot_twice_is_idempotent() {
        String q = newQueue("q127a");
        Pq.subscribeSlot(ds, q, "cw", 0, 2);
        Pq.subscribeSlot(ds, q, "cw", 0, 2);
        assertEquals(1, Db.count(ds, "select count(*) from pgque.partition_slot s join pgque.queue q on q.queue_id = s.queue_id"
                + " where q.queue_name = ? and s.co_name = 'cw' and s.slot = 0", q));
    }

    @Test
    void us12_7_subscribe_slot_with_other_n_after_pin_raises() {
        String q = queueWithSlots("q127b", 2);
        Db.assertSqlState("PQ006", () -> Pq.subscribeSlot(ds, q, "cw", 0, 3));
    }

    @Test
    void us12_7_receive_with_wrong_n_raises_n_error_before_lease_error() {
        String q = queueWithSlots("q127c", 2);
        Db.assertSqlState("PQ006", () -> Pq.receive(ds, q, "cw", 0, 3, "no-lease-worker", 100));
    }

    @Test
    void us12_7_ack_with_wrong_n_raises() {
        String q = queueWithSlots("q127d", 2);
        assertNotNull(Pq.claim(ds, q, "cw", 0, "acc-a"));
        Db.assertSqlState("PQ006", () -> Pq.ack(ds, q, "cw", 0, 3, "acc-a"));
    }

    // ------------------------------------------------------------------ cleanup

    @Test
    void us12_cleanup_unsubscribe_every_slot_then_drop_queue_succeeds() {
        String q = queueWithSlots("q12z", 2);
        Pq.send(ds, q, "evt", "x", "tenant-A");
        Pq.tick(ds, q);
        Pq.drainSlot(ds, q, "cw", 0, 2, "acc-w", 100);
        for (int k = 0; k < 2; k++) {
            Db.exec(ds, "select pgque.unsubscribe_slot(?::text, ?::text, ?::int)", q, "cw", k);
        }
        assertEquals(0, Db.count(ds, "select count(*) from pgque.subscription s join pgque.queue q on q.queue_id = s.sub_queue"
                + " where q.queue_name = ?", q), "no subscription left behind");
        assertEquals(0, Db.count(ds, "select count(*) from pgque.partition_consumer p join pgque.queue q on q.queue_id = p.queue_id"
                + " where q.queue_name = ?", q), "pin dropped with the last slot");
        assertEquals(1, Db.one(ds, Integer.class, "select pgque.drop_queue(?::text)", q));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.pgque.testing.SqlValues.asLong;
import static io.pgque.testing.SqlValues.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * slot_stats(), what an exporter reads per slot: every slot of every partitioned consumer, also
 * one nobody has ever claimed; whether a live lease holds it and since when, or for how long
 * none has (since a release, an expiry or the slot's creation), which is what an alert on a
 * deleted connector's consumer needs; the slot's own lag, backlog, retries and dead letters.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SlotStatsIT {

    private static final List<String> COLUMNS = List.of("queue_name", "consumer_name", "slot", "n", "slot_set",
            "lease_owner", "lease_held", "lease_epoch", "leased_for", "unleased_for", "lag", "last_seen", "last_tick",
            "current_batch", "pending_events", "retry_events", "dead_letters");
    private static final String MONITOR = "slot_stats_monitor";
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private static DataSource ds;
    private static DataSource monitor;

    @BeforeAll
    static void install() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("slot_stats").installEngine();
        ds = db.superuser();
        Db.exec(ds, "do $$ begin if not exists (select 1 from pg_roles where rolname = '" + MONITOR + "') then"
                + " create role " + MONITOR + " login; end if; end $$");
        Db.exec(ds, "grant pgque_reader to " + MONITOR);
        monitor = db.as(MONITOR);
    }

    private static List<Map<String, Object>> stats(String q) {
        return Db.rows(monitor, "select * from pgque.slot_stats() where queue_name = ?", q);
    }

    private static Map<String, Object> stats(String q, String slotSet, int slot) {
        return stats(q).stream().filter(r -> slotSet.equals(r.get("slot_set")) && ((Number) r.get("slot")).intValue() == slot)
                .findFirst().orElseThrow(() -> new AssertionError("no row for " + slotSet + " slot " + slot + " in " + stats(q)));
    }

    private static Timestamp leaseSince(String q, String c, int slot) {
        return Db.one(ds, Timestamp.class, "select ps.lease_since from pgque.partition_slot ps join pgque.queue q"
                + " on q.queue_id = ps.queue_id where q.queue_name = ? and ps.co_name = ? and ps.slot = ?", q, c, slot);
    }

    @Test
    void aMonitoringLoginSeesEverySlotAlsoOnesNobodyEverClaimed() {
        String q = "ss_every";
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, "c", 3);
        List<Map<String, Object>> rows = stats(q);
        assertEquals(3, rows.size(), rows.toString());
        assertEquals(COLUMNS, new ArrayList<>(rows.get(0).keySet()));
        for (Map<String, Object> r : rows) {
            assertEquals("c", r.get("consumer_name"));
            assertEquals(3, asLong(r.get("n")));
            assertEquals("current", r.get("slot_set"));
            assertEquals(false, r.get("lease_held"), r.toString());
            assertNull(r.get("lease_owner"));
            assertNull(r.get("leased_for"));
            assertTrue(seconds(r.get("unleased_for")) >= 0, "unleased since it was subscribed: " + r);
            assertEquals(0, asLong(r.get("lease_epoch")));
            assertEquals(0, asLong(r.get("pending_events")));
        }
    }

    @Test
    void leasedForCountsFromTheTakeoverAndUnleasedForFromTheReleaseOrTheExpiry() {
        String q = "ss_lease";
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, "c", 2);
        Timestamp subscribed = leaseSince(q, "c", 0);

        assertEquals(1L, Pq.claim(ds, q, "c", 0, "w1", "1 hour"));
        Timestamp takenOver = leaseSince(q, "c", 0);
        assertTrue(takenOver.after(subscribed), "a takeover restarts the clock");
        Map<String, Object> held = stats(q, "current", 0);
        assertEquals(true, held.get("lease_held"));
        assertEquals("w1", held.get("lease_owner"));
        assertEquals(1, asLong(held.get("lease_epoch")));
        assertNull(held.get("unleased_for"));
        double heldFor = seconds(held.get("leased_for"));

        assertEquals(1L, Pq.claim(ds, q, "c", 0, "w1", "1 hour"), "a renewal keeps the epoch");
        assertEquals(takenOver, leaseSince(q, "c", 0), "and the clock: the holder has held it since its takeover");
        assertTrue(seconds(stats(q, "current", 0).get("leased_for")) >= heldFor);

        assertTrue(Pq.release(ds, q, "c", 0, "w1"));
        Map<String, Object> released = stats(q, "current", 0);
        assertEquals(false, released.get("lease_held"));
        assertNull(released.get("leased_for"));
        assertTrue(leaseSince(q, "c", 0).after(takenOver), "a release restarts the clock");
        assertTrue(seconds(released.get("unleased_for")) < seconds(stats(q, "current", 1).get("unleased_for")),
                "slot 0 has been without a holder since its release, slot 1 since it was subscribed");

        // A holder that stops renewing: unleased from the moment its lease ran out.
        assertEquals(1L, Pq.claim(ds, q, "c", 1, "w2", "1 second"));
        Db.await(DEADLINE, Duration.ofMillis(50), "the 1 s lease runs out",
                () -> Boolean.FALSE.equals(stats(q, "current", 1).get("lease_held")));
        Map<String, Object> expired = Db.rows(ds, """
                select s.unleased_for, clock_timestamp() - ps.lease_until as since_expiry,
                       clock_timestamp() - ps.lease_since as since_takeover
                  from pgque.slot_stats() s
                  join pgque.queue q on q.queue_name = s.queue_name
                  join pgque.partition_slot ps on ps.queue_id = q.queue_id and ps.co_name = s.consumer_name and ps.slot = s.slot
                 where s.queue_name = ? and s.slot = 1""", q).get(0);
        double unleased = seconds(expired.get("unleased_for"));
        assertTrue(Math.abs(unleased - seconds(expired.get("since_expiry"))) < 0.5, "since the expiry: " + expired);
        assertTrue(seconds(expired.get("since_takeover")) - unleased > 0.5, "not since the takeover: " + expired);

        assertEquals(2L, Pq.claim(ds, q, "c", 1, "w3", "1 hour"), "an expired lease is taken over with a new epoch");
        Map<String, Object> again = stats(q, "current", 1);
        assertEquals("w3", again.get("lease_owner"));
        assertTrue(seconds(again.get("leased_for")) < unleased + 1, again.toString());
    }

    @Test
    void lagBacklogRetriesAndDeadLettersAreEachSlotsOwn() {
        String q = "ss_figures";
        Pq.createQueue(ds, q);
        // PgQ counts from the sequence, which reads the same before and after a fresh queue's first event.
        Pq.send(ds, q, "t", "warm-up", null);
        Pq.tick(ds, q);
        Pq.subscribePartitioned(ds, q, "c", 2);
        String key0 = keyOf(0, 2);
        String key1 = keyOf(1, 2);
        for (int i = 0; i < 3; i++) {
            Pq.send(ds, q, "t", "zero-" + i, key0);
            Pq.send(ds, q, "t", "one-" + i, key1);
        }
        Pq.tick(ds, q);
        assertEquals(6, asLong(stats(q, "current", 1).get("pending_events")),
                "the queue's events since the slot's cursor, forced ticks' ids left out");

        Pq.claim(ds, q, "c", 0, "w", "1 hour");
        List<Pq.Msg> batch = Pq.receive(ds, q, "c", 0, 2, "w", 100);
        assertEquals(3, batch.size(), batch.toString());
        assertEquals(batch.get(0).batchId(), asLong(stats(q, "current", 0).get("current_batch")));
        Db.exec(ds, "select pgque.dead_letter_partitioned(?, ?, 0, 2, 'w', ?, 'unreadable')", q, "c", batch.get(0).msgId());
        assertEquals(1, Pq.nack(ds, q, "c", 0, 2, "w", batch.get(1), "1 hour"));
        assertEquals(1, Pq.ack(ds, q, "c", 0, 2, "w"));

        Map<String, Object> zero = stats(q, "current", 0);
        Map<String, Object> one = stats(q, "current", 1);
        assertEquals(1, asLong(zero.get("dead_letters")), zero.toString());
        assertEquals(1, asLong(zero.get("retry_events")), zero.toString());
        assertNull(zero.get("current_batch"), "acked");
        assertEquals(0, asLong(zero.get("pending_events")), "slot 0 read up to the last tick");
        assertEquals(0, asLong(one.get("dead_letters")));
        assertEquals(0, asLong(one.get("retry_events")));
        assertEquals(6, asLong(one.get("pending_events")), one.toString());
        assertTrue(asLong(one.get("last_tick")) < asLong(zero.get("last_tick")), "slot 1 still stands where it began");
        assertTrue(seconds(one.get("lag")) > seconds(zero.get("lag")), "so it lags further behind: " + one + " " + zero);
        assertEquals(1, asLong(Db.one(monitor, Long.class,
                "select dlq_count from pgque.queue_stats() where queue_name = ?", q)), "the queue counts it too");
    }

    @Test
    void aResizeShowsBothSetsTheNewSlotsUnleasedSinceItBegan() {
        String q = "ss_resize";
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, "c", 2);
        Pq.claim(ds, q, "c", 0, "w", "1 hour");
        Db.exec(ds, "select pgque.begin_resize(?, ?, 4)", q, "c");
        List<Map<String, Object>> rows = stats(q);
        assertEquals(List.of("old", "old", "new", "new", "new", "new"), rows.stream().map(r -> r.get("slot_set")).toList());
        assertEquals(true, stats(q, "old", 0).get("lease_held"), "the old set keeps its leases while it drains");
        double sinceResize = Db.one(ds, Double.class, "select extract(epoch from now() - resize_started)::float8"
                + " from pgque.partition_consumer pc join pgque.queue q on q.queue_id = pc.queue_id where q.queue_name = ?", q);
        for (int slot = 0; slot < 4; slot++) {
            Map<String, Object> r = stats(q, "new", slot);
            assertEquals(4, asLong(r.get("n")));
            assertEquals(false, r.get("lease_held"), r.toString());
            assertTrue(seconds(r.get("unleased_for")) <= sinceResize + 1, "unleased since the resize began: " + r);
        }
    }

    /**
     * A claim is a row lock and an update in the claimer's transaction: a monitoring session sees
     * the slot unleased until the claim commits, and never waits for the lock (it would run into
     * its lock_timeout).
     */
    @Test
    void aClaimInAnotherSessionShowsOnceCommittedAndNeverBlocksTheMonitor() throws SQLException {
        String q = "ss_sessions";
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, "c", 1);
        try (Connection worker = ds.getConnection(); Connection monitoring = monitor.getConnection()) {
            worker.setAutoCommit(false);
            assertEquals(1L, Pq.claim(worker, q, "c", 0, "w-a", "1 hour"));
            Db.exec(monitoring, "set lock_timeout = '2s'");
            Map<String, Object> during = Db.rows(monitoring, "select * from pgque.slot_stats() where queue_name = ?", q).get(0);
            assertEquals(false, during.get("lease_held"), "not committed yet: " + during);
            assertEquals(0, asLong(during.get("lease_epoch")));
            worker.commit();
            Map<String, Object> after = Db.rows(monitoring, "select * from pgque.slot_stats() where queue_name = ?", q).get(0);
            assertEquals(true, after.get("lease_held"), after.toString());
            assertEquals("w-a", after.get("lease_owner"));
            assertEquals(1, asLong(after.get("lease_epoch")));
            assertTrue(seconds(after.get("leased_for")) >= 0);
        }
    }

    /** A partition key that lands in {@code slot} of {@code n}. */
    private static String keyOf(int slot, int n) {
        for (int i = 0; i < 1000; i++) {
            if (Pq.expectedSlot(ds, "key-" + i, n) == slot) {
                return "key-" + i;
            }
        }
        throw new AssertionError("no key for slot " + slot + " of " + n);
    }
}

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The resize protocol step by step (begin, drain to the seal, complete or abort), with two or
 * more sessions where a guarantee depends on timing: a producer transaction that straddles the
 * seal, a read in flight while complete_resize runs, retries and dead letters of old slots, the
 * fencing of a worker still on the old set, rotation while both sets exist, and abort at every
 * stage.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ResizeIT {

    private static DataSource ds;
    private static final AtomicInteger QUEUES = new AtomicInteger();

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("resize").installEngine().superuser();
    }

    private static String queue(int n) {
        String q = "rs_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, "c", n);
        return q;
    }

    private static List<Long> sendKeys(String q, int count, String prefix) {
        return Db.with(ds, c -> {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ids.add(Pq.send(c, q, "t", prefix + i, "key" + (i % 10)));
            }
            return ids;
        });
    }

    private static final Map<String, Integer> SLOTS = new java.util.concurrent.ConcurrentHashMap<>();

    /** The slot of a key among n, from PostgreSQL's own hash (cached: the tests use few keys). */
    private static int slotOf(String key, int n) {
        return SLOTS.computeIfAbsent(key + "/" + n, k -> Pq.expectedSlot(ds, key, n));
    }

    private static long begin(String q, int n) {
        return Db.one(ds, Long.class, "select pgque.begin_resize(?, ?, ?)", q, "c", n);
    }

    private static boolean ready(String q) {
        return Db.one(ds, Boolean.class, "select pgque.resize_ready(?, ?)", q, "c");
    }

    private static int complete(String q) {
        return Db.one(ds, Integer.class, "select pgque.complete_resize(?, ?)", q, "c");
    }

    private static int abort(String q) {
        return Db.one(ds, Integer.class, "select pgque.abort_resize(?, ?)", q, "c");
    }

    /**
     * Reads a slot until its cursor stops moving (old slots stop at the seal), acking each batch.
     * An empty answer alone is not the end: a window without events of the slot's keys is
     * finished at once and the next one may have some.
     */
    private static List<Msg> drain(String q, int slot, int n) {
        String worker = "drain-" + slot + "-" + n;
        return Db.with(ds, c -> {
            Pq.claim(c, q, "c", slot, worker, null);
            List<Msg> out = new ArrayList<>();
            while (true) {
                Long before = cursor(c, q, slot, n);
                List<Msg> batch = Pq.receiveWholeBatch(c, q, "c", slot, n, worker, 100);
                if (batch.isEmpty()) {
                    if (java.util.Objects.equals(before, cursor(c, q, slot, n))) {
                        break;
                    }
                    continue;
                }
                out.addAll(batch);
                assertEquals(1, Pq.ack(c, q, "c", slot, n, worker));
            }
            Pq.release(c, q, "c", slot, worker);
            return out;
        });
    }

    private static Long cursor(Connection c, String q, int slot, int n) throws SQLException {
        return Db.one(c, Long.class, "select s.sub_last_tick from pgque.subscription s join pgque.consumer c "
                + "on c.co_id = s.sub_consumer join pgque.queue q on q.queue_id = s.sub_queue "
                + "where q.queue_name = ? and c.co_name = ?", q, Pq.slotConsumer("c", slot, n));
    }

    /** How many subscriptions of the queue belong to consumer c's set of n slots. */
    private static long slotSubscriptions(String q, int n) {
        return Db.count(ds, "select count(*) from pgque.subscription s join pgque.consumer c on c.co_id = s.sub_consumer "
                + "join pgque.queue q on q.queue_id = s.sub_queue where q.queue_name = ? and c.co_name like ?",
                q, "c#%/" + n);
    }

    private static List<Msg> drainAll(String q, int n) {
        List<Msg> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            out.addAll(drain(q, k, n));
        }
        return out;
    }

    private static List<Long> ids(List<Msg> msgs) {
        return msgs.stream().map(Msg::msgId).sorted().toList();
    }

    @Test
    void growDeliversOldEpochUpToTheSealAndTheNewEpochOnTheNewSlots() {
        String q = queue(2);
        List<Long> before = sendKeys(q, 30, "a");
        Pq.tick(ds, q);
        long seal = begin(q, 4);
        List<Long> after = sendKeys(q, 30, "b");
        Pq.tick(ds, q);

        assertFalse(ready(q), "old slots have not reached the seal");
        List<Msg> old = new ArrayList<>();
        for (int k = 0; k < 2; k++) {
            for (Msg m : drain(q, k, 2)) {
                assertEquals(slotOf(m.extra1(), 2), k, "event on the old slot of its key");
                old.add(m);
            }
        }
        assertEquals(before, ids(old), "old slots deliver exactly the events up to the seal");
        assertTrue(ready(q));
        assertEquals(4, complete(q));
        List<Msg> fresh = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            for (Msg m : drain(q, k, 4)) {
                assertEquals(slotOf(m.extra1(), 4), k, "event on the new slot of its key");
                fresh.add(m);
            }
        }
        assertEquals(after, ids(fresh), "new slots deliver exactly the events after the seal");
        Map<String, Object> row = Pq.status(ds, q, "c", 0);
        assertEquals("stable", row.get("resize_state"));
        assertEquals(1L, ((Number) row.get("resize_epoch")).longValue());
        assertEquals(4, ((Number) row.get("n")).intValue());
        assertTrue(seal > 0);
    }

    @Test
    void shrinkWorksTheSameWay() {
        String q = queue(5);
        List<Long> before = sendKeys(q, 40, "a");
        Pq.tick(ds, q);
        begin(q, 2);
        List<Long> after = sendKeys(q, 40, "b");
        Pq.tick(ds, q);
        assertEquals(before, ids(drainAll(q, 5)));
        assertEquals(2, complete(q));
        assertEquals(after, ids(drainAll(q, 2)));
        assertEquals(0L, slotSubscriptions(q, 5), "the old slot subscriptions are gone");
    }

    @Test
    void statusShowsBothSetsAndWhatBlocksCompletion() {
        String q = queue(2);
        sendKeys(q, 20, "a");
        Pq.tick(ds, q);
        long seal = begin(q, 3);
        List<Map<String, Object>> rows = Pq.status(ds, q, "c");
        assertEquals(5, rows.size(), "two old rows and three new ones: " + rows);
        for (Map<String, Object> row : rows) {
            assertEquals("draining", row.get("resize_state"));
            assertEquals(2, ((Number) row.get("old_n")).intValue());
            assertEquals(3, ((Number) row.get("new_n")).intValue());
            assertEquals(seal, ((Number) row.get("seal_tick")).longValue());
            if ("old".equals(row.get("slot_set"))) {
                assertTrue(((String) row.get("blocked_by")).startsWith("cursor at tick "), "" + row);
            } else {
                assertEquals("new", row.get("slot_set"));
                assertNull(row.get("blocked_by"));
                assertEquals(seal, ((Number) row.get("last_tick")).longValue(), "new slots start at the seal");
            }
        }
        SQLException notReady = Db.assertSqlState("55000", () -> complete(q));
        assertTrue(notReady.getMessage().contains("is not ready: slot 0: cursor at tick"), notReady.getMessage());

        Pq.claim(ds, q, "c", 0, "w");
        assertFalse(Pq.receive(ds, q, "c", 0, 2, "w", 100).isEmpty());
        Db.await(Duration.ofSeconds(5), Duration.ofMillis(10), "blocked_by names the open batch", () ->
                Db.rows(ds, "select blocked_by from pgque.partition_slot_status where queue_name = ? and slot = 0 "
                        + "and slot_set = 'old'", q).get(0).get("blocked_by").toString().matches("batch \\d+ is open"));
    }

    @Test
    void aProducerTransactionThatCommitsAfterTheSealLandsInTheNewEpoch() throws Exception {
        String q = queue(2);
        long early = Pq.send(ds, q, "t", "early", "key1");
        long straddling;
        try (Connection producer = ds.getConnection()) {
            producer.setAutoCommit(false);
            straddling = Pq.send(producer, q, "t", "straddling", "key1"); // a low id, not yet committed
            Pq.tick(ds, q);
            begin(q, 3);
            producer.commit();
        }
        long late = Pq.send(ds, q, "t", "late", "key1");
        Pq.tick(ds, q);
        assertTrue(straddling < late);
        List<Msg> old = drainAll(q, 2);
        assertEquals(List.of(early), ids(old), "the old epoch holds only what was committed before the seal");
        complete(q);
        assertEquals(List.of(straddling, late), ids(drainAll(q, 3)),
                "the straddling event, though its id is older than the seal, is delivered in the new epoch");
    }

    @Test
    void newSlotsStayClosedAndOldSlotsStopAtTheSealUntilComplete() {
        String q = queue(2);
        begin(q, 4);
        sendKeys(q, 20, "a");
        Pq.tick(ds, q);
        assertTrue(drainAll(q, 2).isEmpty(), "old slots read nothing past the seal");
        Pq.claim(ds, q, "c", 0, "new-worker");
        SQLException early = Db.assertSqlState("PQ011", () -> Pq.receive(ds, q, "c", 0, 4, "new-worker", 10));
        assertTrue(early.getMessage().contains("is being resized from 2 to 4 slots"), early.getMessage());
        // The plain primitives refuse slots altogether (issue 40); the internal one that opens a
        // slot's batch, called as the owner, cannot open a batch of a new slot before completion...
        Db.assertSqlState("PQ009", () -> Db.one(ds, Long.class, "select pgque.next_batch(?, ?)", q, "c#1/4"));
        assertNull(Db.one(ds, Long.class, "select batch_id from pgque.batch_open(?, ?, null, null, null, null)", q, "c#1/4"));
        assertNull(Db.one(ds, Long.class,
                "select batch_id from pgque.batch_open(?, ?, null, 1, null, null)", q, "c#1/2"),
                "nor one of an old slot past the seal, whatever min_count asks");
    }

    @Test
    void aWorkerStillOnTheOldSetAfterCompletionIsRefusedAndLeaseEpochsKeepGrowing() {
        String q = queue(2);
        for (int i = 0; i < 3; i++) {
            Pq.claim(ds, q, "c", 1, "worker-" + i);
            Pq.release(ds, q, "c", 1, "worker-" + i);
        }
        begin(q, 3);
        drainAll(q, 2);
        long zombieEpoch = Pq.claim(ds, q, "c", 1, "zombie");
        assertTrue(ready(q), "the old slots stand at the seal");
        complete(q);
        SQLException retired = Db.assertSqlState("PQ011", () -> Pq.receive(ds, q, "c", 1, 2, "zombie", 10));
        assertTrue(retired.getMessage().contains("slot set n=2 of consumer c on queue " + q
                + " was retired by a resize to n=3 (resize epoch 1)"), retired.getMessage());
        Db.assertSqlState("PQ011", () -> Pq.ack(ds, q, "c", 1, 2, "zombie"));
        assertNull(Pq.status(ds, q, "c", 1).get("lease_owner"), "the old lease does not carry over");
        Db.assertSqlState("PQ005", () -> Pq.receive(ds, q, "c", 1, 3, "zombie", 10));
        Long fresh = Pq.claim(ds, q, "c", 1, "heir");
        assertEquals(zombieEpoch + 1, fresh, "new lease epochs continue above the old ones");
    }

    @Test
    void completeWaitsForAReadInFlightAndThenRefusesWhileItsBatchIsOpen() throws Exception {
        String q = queue(2);
        sendKeys(q, 20, "a");
        Pq.tick(ds, q);
        begin(q, 4);
        drain(q, 1, 2);
        try (Connection reader = ds.getConnection()) {
            reader.setAutoCommit(false);
            Pq.claim(reader, q, "c", 0, "reader", null);
            assertFalse(Pq.receive(reader, q, "c", 0, 2, "reader", 100).isEmpty());
            // The reader's transaction holds slot 0; complete_resize must wait for it.
            CompletableFuture<SQLException> completing = CompletableFuture.supplyAsync(() -> {
                try {
                    complete(q);
                    return null;
                } catch (Db.SqlError e) {
                    return e.sql();
                }
            });
            Db.await(Duration.ofSeconds(30), Duration.ofMillis(20), "complete_resize waiting on a lock", () ->
                    Db.count(ds, "select count(*) from pg_stat_activity where wait_event_type = 'Lock' "
                            + "and query like '%complete_resize%'") == 1);
            reader.commit(); // the batch stays open
            SQLException refused = completing.get(30, TimeUnit.SECONDS);
            assertEquals("55000", refused == null ? null : refused.getSQLState(), "complete refused");
            assertTrue(refused.getMessage().matches("(?s).*slot 0: batch \\d+ is open.*"), refused.getMessage());
            Pq.ack(reader, q, "c", 0, 2, "reader");
            Pq.release(reader, q, "c", 0, "reader");
            reader.commit();
        }
        drain(q, 0, 2);
        assertEquals(4, complete(q));
    }

    @Test
    void retriesAndDeadLettersOfOldSlotsFollowTheirKeyToTheNewSlot() {
        String q = queue(2);
        Db.exec(ds, "select pgque.set_queue_config(?, 'max_retries', '0')", q);
        long doomed = Pq.send(ds, q, "t", "doomed", "dead-key");
        long retried = Pq.send(ds, q, "t", "retried", "retry-key");
        Pq.tick(ds, q);
        int doomedSlot = slotOf("dead-key", 2);
        int retrySlot = slotOf("retry-key", 2);
        // dead-key's event goes to the dead letters at once (max_retries 0) ...
        Pq.claim(ds, q, "c", doomedSlot, "w");
        for (Msg m : Pq.receive(ds, q, "c", doomedSlot, 2, "w", 100)) {
            if (m.msgId() == doomed) {
                Pq.nack(ds, q, "c", doomedSlot, 2, "w", m, "0 seconds");
            }
        }
        Db.exec(ds, "select pgque.set_queue_config(?, 'max_retries', '5')", q);
        // ... retry-key's event into the retry queue, due at once.
        if (retrySlot != doomedSlot) {
            Pq.claim(ds, q, "c", retrySlot, "w");
            Pq.receive(ds, q, "c", retrySlot, 2, "w", 100);
        }
        for (Msg m : Pq.receiveWholeBatch(ds, q, "c", retrySlot, 2, "w", 100)) {
            if (m.msgId() == retried) {
                Pq.nack(ds, q, "c", retrySlot, 2, "w", m, "0 seconds");
            }
        }
        Pq.ack(ds, q, "c", doomedSlot, 2, "w");
        if (retrySlot != doomedSlot) {
            Pq.ack(ds, q, "c", retrySlot, 2, "w");
        }
        Pq.release(ds, q, "c", doomedSlot, "w");
        Pq.release(ds, q, "c", retrySlot, "w");

        begin(q, 5);
        assertEquals(0, Db.one(ds, Integer.class, "select pgque.maint_retry_events()"),
                "an old slot's retry waits in the retry queue while its consumer is resized");
        Pq.tick(ds, q);
        assertTrue(drainAll(q, 2).isEmpty());
        assertTrue(ready(q), "pending retries do not hold the resize up");
        complete(q);

        String newDead = Pq.slotConsumer("c", slotOf("dead-key", 5), 5);
        assertEquals(newDead, Db.one(ds, String.class, "select c.co_name from pgque.dead_letter d join pgque.consumer c "
                + "on c.co_id = d.dl_consumer_id where d.ev_id = ?", doomed), "the dead letter moved with its key");
        assertEquals(1, Db.one(ds, Integer.class, "select pgque.maint_retry_events()"));
        Pq.tick(ds, q);
        int newSlot = slotOf("retry-key", 5);
        List<Msg> redelivered = drain(q, newSlot, 5);
        assertEquals(List.of(retried), ids(redelivered), "the retry comes back on the new slot of its key");
        assertEquals(1, redelivered.get(0).retryCount());
    }

    @Test
    void rotationCannotDropEventsTheNewSlotsStillNeed() {
        String q = queue(2);
        Db.exec(ds, "select pgque.set_queue_config(?, 'rotation_period', '1 second')", q);
        List<Long> before = sendKeys(q, 20, "a");
        Pq.tick(ds, q);
        begin(q, 3);
        List<Long> after = sendKeys(q, 20, "b");
        Pq.tick(ds, q);
        assertEquals(before, ids(drainAll(q, 2)));
        // Old slots stand at the seal, new slots wait there: rotate as hard as the engine allows.
        long deadline = System.nanoTime() + Duration.ofSeconds(4).toNanos();
        int switches = 0;
        while (System.nanoTime() < deadline) {
            switches += Db.one(ds, Integer.class, "select pgque.maint_rotate_tables_step1(?)", q);
            Db.exec(ds, "select pgque.maint_rotate_tables_step2()");
            Pq.tick(ds, q);
        }
        // One switch is safe (every cursor is past the creation); the next would truncate the
        // table holding the events after the seal, which both slot sets still pin.
        assertEquals(1, switches, "rotation went as far as it safely could, and no further");
        complete(q);
        assertEquals(after, ids(drainAll(q, 3)), "nothing after the seal was truncated away");
        Db.await(Duration.ofSeconds(20), Duration.ofMillis(100), "rotation moves on once the new slots read", () -> {
            Pq.tick(ds, q);
            drainAll(q, 3);
            int done = Db.one(ds, Integer.class, "select pgque.maint_rotate_tables_step1(?)", q);
            Db.exec(ds, "select pgque.maint_rotate_tables_step2()");
            return done == 1;
        });
    }

    enum AbortPoint { RIGHT_AFTER_BEGIN, PART_DRAINED, READY }

    @ParameterizedTest
    @EnumSource(AbortPoint.class)
    void abortAtAnyPointLosesNothingAndKeepsOrder(AbortPoint point) {
        String q = queue(3);
        List<Long> all = new ArrayList<>(sendKeys(q, 30, "a"));
        Pq.tick(ds, q);
        begin(q, 6);
        all.addAll(sendKeys(q, 30, "b"));
        Pq.tick(ds, q);
        List<Msg> got = new ArrayList<>();
        if (point == AbortPoint.PART_DRAINED) {
            got.addAll(drain(q, 0, 3));
        } else if (point == AbortPoint.READY) {
            got.addAll(drainAll(q, 3));
            assertTrue(ready(q));
        }
        assertEquals(3, abort(q));
        all.addAll(sendKeys(q, 30, "c"));
        Pq.tick(ds, q);
        got.addAll(drainAll(q, 3));
        assertEquals(all, ids(got), "every event delivered once by the old slots");
        for (int k = 0; k < 3; k++) {
            final int slot = k;
            List<Long> ofSlot = got.stream().filter(m -> slotOf(m.extra1(), 3) == slot)
                    .map(Msg::msgId).toList();
            assertEquals(ofSlot.stream().sorted().toList(), ofSlot, "slot " + k + " in order");
        }
        assertEquals(0L, slotSubscriptions(q, 6), "the new slots are gone");
        Db.assertSqlState("55000", () -> complete(q));
    }

    @Test
    void badRequestsAreRefusedWithClearErrors() {
        String q = queue(2);
        Db.assertSqlState("22023", () -> begin(q, 2));
        Db.assertSqlState("22023", () -> begin(q, 0));
        Db.assertSqlState("22023", () -> begin(q, 257));
        Db.assertSqlState("55000", () -> abort(q));
        Db.assertSqlState("PQ006", () -> Db.exec(ds, "select pgque.begin_resize(?, 'nobody', 3)", q));
        Db.assertSqlState("PQ001", () -> Db.exec(ds, "select pgque.begin_resize('no_queue', 'c', 3)"));
        assertFalse(ready(q));
        begin(q, 3);
        SQLException twice = Db.assertSqlState("55000", () -> begin(q, 4));
        assertTrue(twice.getMessage().contains("already being resized from 2 to 3 slots"), twice.getMessage());
        // Set-up calls stay idempotent during a resize; dropping the consumer drops both sets.
        Pq.subscribePartitioned(ds, q, "c", 2);
        Db.exec(ds, "select pgque.unsubscribe_partitioned(?, 'c')", q);
        assertEquals(0L, slotSubscriptions(q, 2) + slotSubscriptions(q, 3));
    }
}

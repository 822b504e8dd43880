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
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * reposition_slot: the way to rewind or skip one slot of a partitioned consumer. It moves the
 * slot's cursor to a tick, never while a live lease is held, and fences a holder whose lease ran
 * out.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RepositionSlotIT {

    private static DataSource ds;
    private static final AtomicInteger QUEUES = new AtomicInteger();

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("reposition_slot").installEngine().superuser();
    }

    /** A queue with consumer c of one slot, subscribed at its first tick. */
    private static String queue() {
        String q = "repos_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, "c", 1);
        return q;
    }

    private static long lastTick(String q) {
        return Db.one(ds, Long.class, "select max(tick_id) from pgque.tick t join pgque.queue q on q.queue_id = t.tick_queue "
                + "where q.queue_name = ?", q);
    }

    private static long reposition(String q, Long tick) {
        return Db.one(ds, Long.class, "select pgque.reposition_slot(?::text, 'c', 0, ?::bigint)", q, tick);
    }

    private static List<String> payloads(List<Msg> batch) {
        return batch.stream().map(Msg::payload).toList();
    }

    /** Sends the payloads under distinct keys and ticks; returns the tick that closes them. */
    private static long sendAndTick(String q, String... payloads) {
        for (String payload : payloads) {
            Pq.send(ds, q, "evt", payload, "k-" + payload);
        }
        Pq.tick(ds, q);
        return lastTick(q);
    }

    @Test
    void rewindingDeliversAgainWhatTheSlotDeliveredSinceTheTick() {
        String q = queue();
        long start = lastTick(q);
        sendAndTick(q, "a", "b");
        // drainSlot claims the slot, reads and acks to the end, and releases it
        assertEquals(List.of("a", "b"), payloads(Pq.drainSlot(ds, q, "c", 0, 1, "w1", 100)));

        assertEquals(start, reposition(q, start));
        assertEquals(List.of("a", "b"), payloads(Pq.drainSlot(ds, q, "c", 0, 1, "w2", 100)), "read again from the tick");
    }

    @Test
    void skippingToTheNewestTickLeavesWhatCameBeforeUnread() {
        String q = queue();
        long end = sendAndTick(q, "poison", "stuck");
        assertEquals(end, reposition(q, null), "NULL: the newest tick");
        sendAndTick(q, "after");
        assertEquals(List.of("after"), payloads(Pq.drainSlot(ds, q, "c", 0, 1, "w1", 100)));
    }

    @Test
    void aLiveLeaseIsNeverMovedUnderItsHolder() {
        String q = queue();
        long start = lastTick(q);
        sendAndTick(q, "a");
        assertNotNull(Pq.claim(ds, q, "c", 0, "w1"));
        Db.assertSqlState("55000", () -> reposition(q, start));
        assertEquals(List.of("a"), payloads(Pq.receive(ds, q, "c", 0, 1, "w1", 100)), "the holder reads on as before");
    }

    /**
     * A worker whose lease ran out while it held a batch (stalled, not dead) must not ack that
     * batch after the move: the lease is cleared, so its next call is refused, and whoever claims
     * next gets a new epoch.
     */
    @Test
    void aHolderWhoseLeaseRanOutIsFencedAndTheNextClaimHasANewEpoch() {
        String q = queue();
        long start = lastTick(q);
        sendAndTick(q, "a");
        Long epoch = Pq.claim(ds, q, "c", 0, "w1");
        assertNotNull(epoch);
        assertEquals(1, Pq.receive(ds, q, "c", 0, 1, "w1", 100).size());
        Db.exec(ds, "update pgque.partition_slot set lease_until = clock_timestamp() - interval '1 second' "
                + "where co_name = 'c' and queue_id = (select queue_id from pgque.queue where queue_name = ?)", q);

        reposition(q, start);
        Db.assertSqlState("PQ005", () -> Pq.ack(ds, q, "c", 0, 1, "w1"));
        assertNull(Pq.status(ds, q, "c", 0).get("lease_owner"));
        assertEquals(epoch + 1, Pq.claim(ds, q, "c", 0, "w1"), "a new epoch, even for the same worker");
        assertEquals(List.of("a"), payloads(Pq.drainSlot(ds, q, "c", 0, 1, "w1", 100)), "the abandoned batch's events again");
    }

    @Test
    void refusedDuringAResizeAndForAGoneTickOrAnUnknownSlot() {
        String q = queue();
        Db.assertSqlState("PQ006", () -> Db.one(ds, Long.class, "select pgque.reposition_slot(?::text, 'c', 1, null)", q));
        Db.assertSqlState("PQ006", () -> Db.one(ds, Long.class, "select pgque.reposition_slot(?::text, 'nobody', 0, null)", q));
        Db.assertSqlState("22023", () -> reposition(q, lastTick(q) + 1_000));

        Db.exec(ds, "select pgque.begin_resize(?::text, 'c', 2)", q);
        Db.assertSqlState("55000", () -> reposition(q, null));
        Db.exec(ds, "select pgque.abort_resize(?::text, 'c')", q);
        assertEquals(lastTick(q), reposition(q, null), "allowed again once the resize is over");
    }
}

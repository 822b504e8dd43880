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
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The catch-up window of {@code receive_partitioned(..., i_window_events)}: a slot behind by
 * several ticks gets them as one batch (as many as the window holds, at least one), a slot that
 * keeps up still gets one tick per batch, and the window never changes which events a slot
 * sees, their order, or where a resize's seal stops the old slots.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CatchUpWindowIT {

    private static final String RECEIVE_WINDOW = "select * from pgque.receive_partitioned(?::text, ?::text, ?::int, "
            + "?::int, ?::text, ?::int, ?::bigint)";

    private static DataSource ds;
    private static final AtomicInteger QUEUES = new AtomicInteger();

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("catch_up").installEngine().superuser();
    }

    /** A queue with consumer c over n slots, every slot claimed by worker w. */
    private static String queue(int n) {
        String q = "cu_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        Pq.subscribePartitioned(ds, q, "c", n);
        for (int slot = 0; slot < n; slot++) {
            Pq.claim(ds, q, "c", slot, "w");
        }
        return q;
    }

    /** Sends {@code count} events (keys k0..k{count-1} with the prefix) and ticks: one tick window. */
    private static List<Long> tickOf(String q, String prefix, int count) {
        List<Long> ids = Db.with(ds, c -> {
            List<Long> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sent.add(Pq.send(c, q, "t", prefix + i, "k" + i));
            }
            return sent;
        });
        Pq.tick(ds, q);
        return ids;
    }

    private static List<Msg> receive(String q, int slot, int n, Long window) {
        return Db.with(ds, c -> Pq.query(c, RECEIVE_WINDOW, q, "c", slot, n, "w", 1000, window));
    }

    private static List<Long> ids(List<Msg> batch) {
        return batch.stream().map(Msg::msgId).toList();
    }

    private static List<Long> concat(List<Long> a, List<Long> b) {
        List<Long> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Test
    void aSlotBehindSeveralTicksGetsThemAsOneBatchInOrder() {
        String q = queue(1);
        List<Long> first = tickOf(q, "a", 3);
        List<Long> second = tickOf(q, "b", 3);
        List<Long> third = tickOf(q, "c", 3);

        List<Msg> batch = receive(q, 0, 1, 100L);

        assertEquals(concat(concat(first, second), third), ids(batch), "three ticks, one batch, in event order");
        assertEquals(1, batch.stream().map(Msg::batchId).distinct().count());
        assertEquals(1, Pq.ack(ds, q, "c", 0, 1, "w"));
        assertTrue(receive(q, 0, 1, 100L).isEmpty(), "nothing is left after the window");
    }

    @Test
    void theWindowTakesAsManyTicksAsItHoldsAndAtLeastOne() {
        String q = queue(1);
        List<Long> first = tickOf(q, "a", 2);
        List<Long> second = tickOf(q, "b", 2);
        List<Long> third = tickOf(q, "c", 5);
        List<Long> fourth = tickOf(q, "d", 1);

        assertEquals(concat(first, second), ids(receive(q, 0, 1, 4L)), "the first two ticks hold 4 events");
        Pq.ack(ds, q, "c", 0, 1, "w");
        assertEquals(third, ids(receive(q, 0, 1, 4L)), "a tick larger than the window is a batch of its own");
        Pq.ack(ds, q, "c", 0, 1, "w");
        assertEquals(fourth, ids(receive(q, 0, 1, 4L)));
        Pq.ack(ds, q, "c", 0, 1, "w");
    }

    @Test
    void aSlotThatKeepsUpStillGetsOneTickPerBatch() {
        String q = queue(1);
        for (String round : List.of("a", "b", "c")) {
            List<Long> sent = tickOf(q, round, 2);
            assertEquals(sent, ids(receive(q, 0, 1, 1_000L)));
            Pq.ack(ds, q, "c", 0, 1, "w");
        }
    }

    @Test
    void anOpenBatchIsReissuedAsItWasWhateverTheWindowAsks() {
        String q = queue(1);
        List<Long> first = tickOf(q, "a", 2);
        List<Msg> opened = receive(q, 0, 1, null);
        assertEquals(first, ids(opened), "no window: one tick");
        tickOf(q, "b", 2);
        assertEquals(ids(opened), ids(receive(q, 0, 1, 1_000L)), "the open batch keeps its end tick");
        assertEquals(opened.get(0).batchId(), receive(q, 0, 1, 1_000L).get(0).batchId());
    }

    @Test
    void everySlotSeesExactlyItsOwnEventsOnceAcrossWindows() {
        int n = 3;
        String q = queue(n);
        List<Long> sent = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            sent.addAll(tickOf(q, "t" + t + "-", 10));
        }
        List<Long> received = new ArrayList<>();
        for (int slot = 0; slot < n; slot++) {
            int batches = 0;
            for (List<Msg> batch = receive(q, slot, n, 25L); Pq.ack(ds, q, "c", slot, n, "w") == 1;
                 batch = receive(q, slot, n, 25L)) {
                received.addAll(ids(batch));
                for (Msg m : batch) {
                    assertEquals(slot, Pq.expectedSlot(ds, m.payload().replaceAll("^t\\d-", "k"), n),
                            "event " + m + " read on slot " + slot);
                }
                batches++;
            }
            assertEquals(3, batches, "60 events, windows of at most 25: two ticks of 10 per batch");
        }
        assertEquals(sent, received.stream().sorted().toList(), "every event once, none lost");
    }

    @Test
    void aWindowStopsAtTheSealOfAResize() throws SQLException {
        String q = queue(2);
        List<Long> before = tickOf(q, "a", 4);
        Db.one(ds, Long.class, "select pgque.begin_resize(?, ?, ?)", q, "c", 4);
        tickOf(q, "b", 4);
        List<Long> old = new ArrayList<>();
        for (int slot = 0; slot < 2; slot++) {
            old.addAll(ids(receive(q, slot, 2, 1_000_000L)));
            Pq.ack(ds, q, "c", slot, 2, "w");
            assertTrue(receive(q, slot, 2, 1_000_000L).isEmpty(), "old slot " + slot + " reads nothing past the seal");
        }
        assertEquals(before, old.stream().sorted().toList(), "the old slots deliver exactly what came before the seal");
    }

    @Test
    void aWindowBelowOneIsRefused() {
        String q = queue(1);
        Db.assertSqlState("22023", () -> receive(q, 0, 1, 0L));
    }

    @Test
    void aTransactionThatCommitsLateIsInTheWindowItBecameVisibleIn() throws Exception {
        String q = queue(1);
        List<Long> first = tickOf(q, "a", 1);
        long late;
        try (Connection open = ds.getConnection()) {
            open.setAutoCommit(false);
            late = Pq.send(open, q, "t", "late", "late-key");
            List<Long> second = tickOf(q, "b", 1);
            assertEquals(concat(first, second), ids(receive(q, 0, 1, 1_000L)), "the open transaction is in no window yet");
            Pq.ack(ds, q, "c", 0, 1, "w");
            open.commit();
        }
        List<Long> third = tickOf(q, "c", 1);
        List<Long> fourth = tickOf(q, "d", 1);
        List<Long> expected = new ArrayList<>(List.of(late));
        expected.addAll(third);
        expected.addAll(fourth);
        assertEquals(expected, ids(receive(q, 0, 1, 1_000L)).stream().sorted().toList(),
                "the late event arrives once, in the window where it became visible");
        Pq.ack(ds, q, "c", 0, 1, "w");
        assertTrue(receive(q, 0, 1, 1_000L).isEmpty());
    }
}

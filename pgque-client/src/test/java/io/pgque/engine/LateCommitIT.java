/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ENGINE.md 1.6 / 1.10: batch membership is decided by commit visibility between two tick
 * snapshots, not by when the event was inserted. An event whose producer transaction stays open
 * across several ticks must still be delivered, exactly once, in the batch in which its commit
 * first becomes visible.
 */
class LateCommitIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("latecommit").installEngine().superuser());
    }

    /** A delivered event with the tick window of the batch that carried it. */
    record Delivery(Msg msg, long prevTick, long tick) {
    }

    /** Drains the consumer batch by batch, recording each batch's tick window (get_batch_info). */
    private static List<Delivery> drainWithTicks(String q, String c) {
        List<Delivery> out = new ArrayList<>();
        for (int round = 0; round < 100; round++) {
            List<Msg> got = sql.receive(q, c, 10_000);
            if (got.isEmpty()) {
                long[] ct = sql.cursorAndLastTick(q, c);
                if (ct[0] >= ct[1]) {
                    return out;
                }
                continue;
            }
            long batch = got.get(0).batchId();
            List<Map<String, Object>> info = sql.rows("select prev_tick_id, tick_id from pgque.get_batch_info(?::bigint)", batch);
            assertEquals(1, info.size(), "get_batch_info of open batch " + batch);
            long prev = ((Number) info.get(0).get("prev_tick_id")).longValue();
            long tick = ((Number) info.get(0).get("tick_id")).longValue();
            for (Msg m : got) {
                out.add(new Delivery(m, prev, tick));
            }
            assertEquals(1, sql.ack(batch));
        }
        throw new AssertionError("consumer did not catch up");
    }

    @Test
    void eventCommittedAfterTwoTicksIsDeliveredExactlyOnceInTheBatchOfItsCommit() throws Exception {
        String q = "late_commit";
        sql.createQueue(q);
        sql.subscribe(q, "c");

        long lateId;
        long t1;
        long t2;
        try (Connection producer = sql.connect()) {
            producer.setAutoCommit(false);
            lateId = OrderingFanoutIT.sendOn(producer, q, "late");
            long currentAtInsert = sql.oneLong("select last_tick_id from pgque.get_queue_info(?)", q);

            t1 = sql.tick(q);
            t2 = sql.tick(q);
            assertTrue(currentAtInsert < t1 && t1 < t2);
            producer.commit();
        }
        long t3 = sql.tick(q);

        List<Delivery> all = drainWithTicks(q, "c");
        List<Delivery> late = all.stream().filter(d -> d.msg().msgId() == lateId).toList();
        assertEquals(1, late.size(), "the late event is delivered exactly once: " + all);
        assertEquals("late", late.get(0).msg().payload());
        assertEquals(t2, late.get(0).prevTick(), "delivered in the batch after the last tick that saw it in progress");
        assertEquals(t3, late.get(0).tick(), "delivered in the batch ending at the first tick after its commit");
    }

    /**
     * The documented ordering caveat (ENGINE.md 1.6, "Ordering facts"): ev_id is drawn at insert,
     * batches follow commit order. So an event with a LOWER msg_id, from a producer transaction that
     * commits late, arrives in a LATER batch than events with higher msg_ids that were sent (and
     * committed) after it. Consumers must not assume msg_id is monotonic across batches.
     */
    @Test
    void lowerMsgIdFromALongProducerTransactionArrivesInALaterBatchThanHigherIdsSentAfterIt() throws Exception {
        String q = "late_order";
        sql.createQueue(q);
        sql.subscribe(q, "c");

        long lateId;
        long earlyId;
        try (Connection producer = sql.connect()) {
            producer.setAutoCommit(false);
            lateId = OrderingFanoutIT.sendOn(producer, q, "late");
            earlyId = sql.send(q, "sent-after-but-committed-first");
            sql.tick(q);
            producer.commit();
        }
        sql.tick(q);

        List<Delivery> all = drainWithTicks(q, "c");
        assertEquals(2, all.size(), "both events, once each: " + all);
        assertTrue(lateId < earlyId, "the long transaction drew the lower id");
        Delivery first = all.get(0);
        Delivery second = all.get(1);
        assertEquals(earlyId, first.msg().msgId(), "the higher id, committed first, is delivered first");
        assertEquals(lateId, second.msg().msgId(), "the lower id arrives afterwards");
        assertTrue(first.tick() < second.tick(), "and in a later batch");
        assertNotNull(second.msg().createdAt());
    }

    /**
     * ENGINE.md 1.10 warns that an event sent in the ticker's own transaction is not in that
     * tick's batch. In PostgreSQL a snapshot never lists its own transaction as in progress, so
     * whether the event counts as visible in its own tick depends on whether a later transaction
     * id had already completed (the snapshot's xmax). Both variants are run; in either the event
     * must be delivered exactly once.
     */
    @Test
    void eventSentInTheTickersOwnTransactionIsDeliveredExactlyOnce() throws Exception {
        sameTransactionTick("same_tx_tick", false);
        sameTransactionTick("same_tx_tick_later_xid_done", true);
    }

    private static void sameTransactionTick(String q, boolean laterTransactionCommitsFirst) throws Exception {
        sql.createQueue(q);
        sql.subscribe(q, "c");
        if (laterTransactionCommitsFirst) {
            sql.createQueue(q + "_aux");
        }
        long id;
        try (Connection c = sql.connect()) {
            c.setAutoCommit(false);
            id = OrderingFanoutIT.sendOn(c, q, "with-the-tick");
            if (laterTransactionCommitsFirst) {
                sql.send(q + "_aux", "newer txid, committed before the tick"); // moves the snapshot's xmax past ours
            }
            try (var st = c.createStatement()) {
                st.execute("select pgque.force_next_tick('" + q + "')");
                st.execute("select pgque.ticker('" + q + "'::text)");
            }
            c.commit();
        }
        sql.tick(q);
        sql.tick(q);
        List<Delivery> all = drainWithTicks(q, "c");
        assertEquals(1, all.stream().filter(d -> d.msg().msgId() == id).count(), q + ": exactly once: " + all);
        assertEquals(1, all.size());
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ENGINE.md 1.1, 1.6, 1.12: batches are ordered by ev_id, consumers fan out, subscribe starts at the newest tick. */
class OrderingFanoutIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("ordering").installEngine().superuser());
    }

    private static List<Long> ids(List<Msg> msgs) {
        return msgs.stream().map(Msg::msgId).toList();
    }

    private static void assertStrictlyAscending(List<Long> ids) {
        for (int i = 1; i < ids.size(); i++) {
            assertTrue(ids.get(i - 1) < ids.get(i), "msg_id order broken at position " + i + ": " + ids);
        }
    }

    @Test
    void batchIsReturnedInMsgIdOrderEvenWhenTxidOrderDiffers() throws Exception {
        String q = "ord_txid";
        sql.createQueue(q);
        sql.subscribe(q, "c");

        // Two producers whose txids are in the opposite order of their event ids: A takes its txid
        // first but inserts after B. An engine that returned rows in ev_txid (index) order, or in
        // physical order per transaction, would hand out ids out of order.
        List<Long> sent = new ArrayList<>();
        try (Connection a = sql.connect(); Connection b = sql.connect()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            try (Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
                sa.execute("select pg_current_xact_id()");
                sb.execute("select pg_current_xact_id()");
                for (int i = 0; i < 5; i++) {
                    sent.add(sendOn(b, q, "b" + i));
                    sent.add(sendOn(a, q, "a" + i));
                }
            }
            b.commit();
            a.commit();
        }
        sent.addAll(sql.sendBatch(q, "x1", "x2", "x3"));
        sent.add(sql.send(q, "y"));
        sql.tick(q);

        List<Msg> got = sql.receive(q, "c", 1000);
        assertEquals(new TreeSet<>(sent), new TreeSet<>(ids(got)), "the batch holds exactly the sent events");
        assertEquals(sent.size(), got.size(), "no event twice");
        assertStrictlyAscending(ids(got));
    }

    @Test
    void retriedCopyKeepsItsOldMsgIdAndSortsToTheFrontOfItsBatch() {
        String q = "ord_retry";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long first = sql.send(q, "first");
        sql.tick(q);
        List<Msg> b1 = sql.receive(q, "c", 10);
        assertEquals(List.of(first), ids(b1));
        assertEquals(1, sql.nack(b1.get(0), "0 seconds", null));
        assertEquals(1, sql.ack(b1.get(0).batchId()));

        // Newer events go into the table before the retry copy is re-inserted behind them.
        List<Long> newer = sql.sendBatch(q, "n1", "n2", "n3");
        assertTrue(sql.maintRetryEvents() >= 1, "the due retry was moved back");
        sql.tick(q);

        List<Msg> b2 = sql.drain(q, "c");
        assertEquals(4, b2.size(), "retry copy and three new events: " + b2);
        assertEquals(first, b2.get(0).msgId(), "the retried copy (lowest msg_id) comes first");
        assertEquals(Integer.valueOf(1), b2.get(0).retryCount());
        assertEquals(new TreeSet<>(newer), new TreeSet<>(ids(b2.subList(1, 4))));
        assertStrictlyAscending(ids(b2));
    }

    @Test
    void everyConsumerGetsEveryEvent() {
        String q = "fanout";
        sql.createQueue(q);
        sql.subscribe(q, "c1");
        sql.subscribe(q, "c2");
        List<Long> sent = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            sent.add(sql.send(q, "e" + i));
        }
        sql.tick(q);
        sent.addAll(sql.sendBatch(q, "f1", "f2"));
        sql.tick(q);

        List<Msg> c1 = sql.drain(q, "c1");
        List<Msg> c2 = sql.drain(q, "c2");
        List<Long> expected = sent.stream().sorted().toList();
        assertEquals(expected, ids(c1), "c1 gets all events, in order");
        assertEquals(expected, ids(c2), "c2 gets all events too (fan-out, not competing consumers)");
        assertEquals(c1.stream().map(Msg::payload).toList(), c2.stream().map(Msg::payload).toList());
    }

    @Test
    void consumerSubscribedAfterATickStartsThereAndMissesEarlierEvents() {
        String q = "late_sub";
        sql.createQueue(q);
        sql.subscribe(q, "early");
        long before = sql.send(q, "before");
        sql.tick(q);
        sql.subscribe(q, "late");
        long after = sql.send(q, "after");
        sql.tick(q);

        assertEquals(List.of(before, after), ids(sql.drain(q, "early")));
        assertEquals(List.of(after), ids(sql.drain(q, "late")),
                "a new subscription starts at the newest tick: the already-ticked event is not visible");
        Set<Long> none = new TreeSet<>(ids(sql.drain(q, "late")));
        assertTrue(none.isEmpty(), "nothing left for the late consumer");
    }

    static long sendOn(Connection c, String q, String payload) throws Exception {
        try (var ps = Sql.prepare(c, "select pgque.send(?::text, ?::text)", q, payload); var rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

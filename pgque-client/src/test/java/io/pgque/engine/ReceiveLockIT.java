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
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ENGINE.md 1.5: next_batch locks the subscription row (the "receive lock"); a concurrent caller
 * for the same consumer waits and then gets the SAME batch, never a second independent one; and a
 * batch is re-issued until it is acked.
 */
class ReceiveLockIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("receivelock").installEngine().superuser());
    }

    /** What one session saw inside its transaction. */
    record Seen(Set<Long> batchIds, List<Long> msgIds) {
    }

    /** receive inside an open transaction, kept open for {@code hold} before committing. */
    private static Seen receiveInTransaction(String q, String c, Connection conn, Duration hold) throws Exception {
        conn.setAutoCommit(false);
        List<Msg> got = Sql.messages(conn, "select * from pgque.receive(?::text, ?::text, 100)", q, c);
        Thread.sleep(hold.toMillis()); // deliberately keep the transaction (and any row lock) open
        conn.commit();
        Set<Long> batches = new TreeSet<>();
        got.forEach(m -> batches.add(m.batchId()));
        return new Seen(batches, got.stream().map(Msg::msgId).toList());
    }

    private static int pid(Connection c) throws Exception {
        try (Statement s = c.createStatement(); var rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void secondSessionWaitsForTheFirstAndGetsTheSameBatch() throws Exception {
        String q = "lock_ordered";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        List<Long> sent = sql.sendBatch(q, "a", "b", "c");
        sql.tick(q);
        sql.send(q, "next-batch");
        sql.tick(q); // a second batch is available: a lock-less engine would hand it to session 2

        ExecutorService pool = Executors.newFixedThreadPool(1);
        try (Connection s1 = sql.connect(); Connection s2 = sql.connect()) {
            int pid2 = pid(s2);
            s1.setAutoCommit(false);
            List<Msg> first = Sql.messages(s1, "select * from pgque.receive(?::text, ?::text, 100)", q, "c");
            assertEquals(sent, first.stream().map(Msg::msgId).toList());

            // Session 2 asks for the same consumer while session 1's transaction is still open.
            Future<Seen> second = pool.submit(() -> receiveInTransaction(q, "c", s2, Duration.ZERO));
            boolean blocked = Sql.await(Duration.ofSeconds(5), Duration.ofMillis(20), () -> second.isDone()
                    || sql.oneLong("select count(*) from pg_stat_activity where pid = ? and wait_event_type = 'Lock'", pid2) == 1);
            assertTrue(blocked, "session 2 neither blocked nor returned");
            assertFalse(second.isDone(), "session 2 must wait on the receive lock while session 1's batch-opening transaction is open");
            s1.commit();

            Seen s2Seen = second.get(10, TimeUnit.SECONDS);
            assertEquals(Set.of(first.get(0).batchId()), s2Seen.batchIds(), "session 2 got the same batch id");
            assertEquals(sent, s2Seen.msgIds(), "and the same events");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void racingSessionsNeverGetTwoDifferentBatches() throws Exception {
        String q = "lock_race";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        AtomicInteger rounds = new AtomicInteger();
        try {
            for (int round = 0; round < 5; round++) {
                List<Long> sent = sql.sendBatch(q, "r" + round + "a", "r" + round + "b");
                sql.tick(q);
                sql.send(q, "r" + round + "-spare");
                sql.tick(q); // a further batch is ready, so a second independent batch would be possible

                CyclicBarrier barrier = new CyclicBarrier(2);
                Future<Seen> f1 = pool.submit(() -> {
                    try (Connection c = sql.connect()) {
                        barrier.await(5, TimeUnit.SECONDS);
                        return receiveInTransaction(q, "c", c, Duration.ofMillis(150));
                    }
                });
                Future<Seen> f2 = pool.submit(() -> {
                    try (Connection c = sql.connect()) {
                        barrier.await(5, TimeUnit.SECONDS);
                        return receiveInTransaction(q, "c", c, Duration.ofMillis(150));
                    }
                });
                Seen a = f1.get(20, TimeUnit.SECONDS);
                Seen b = f2.get(20, TimeUnit.SECONDS);
                assertEquals(1, a.batchIds().size(), "round " + round + ": session 1 got one batch");
                assertEquals(a.batchIds(), b.batchIds(), "round " + round + ": both sessions got the same batch id");
                assertEquals(sent, a.msgIds());
                assertEquals(sent, b.msgIds());
                assertEquals(1, sql.ack(a.batchIds().iterator().next()));
                // consume the spare batch so the next round starts clean
                List<Msg> spare = sql.drain(q, "c");
                assertEquals(1, spare.size(), "round " + round + ": the spare event is still there, once: " + spare);
                rounds.incrementAndGet();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(5, rounds.get());
    }

    @Test
    void receiveBeforeAckReturnsTheSameBatchAgainFromItsStart() {
        String q = "reissue";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        List<Long> sent = sql.sendBatch(q, "1", "2", "3", "4");
        sql.tick(q);
        long next = sql.send(q, "later");
        sql.tick(q);

        List<Msg> a = sql.receive(q, "c", 2);
        List<Msg> b = sql.receive(q, "c", 100);
        assertEquals(sent.subList(0, 2), a.stream().map(Msg::msgId).toList());
        assertEquals(sent, b.stream().map(Msg::msgId).toList(), "re-issued from the beginning, not paged");
        assertEquals(a.get(0).batchId(), b.get(0).batchId(), "same batch id");

        assertEquals(1, sql.ack(a.get(0).batchId()));
        List<Msg> c = sql.receive(q, "c", 100);
        assertEquals(List.of(next), c.stream().map(Msg::msgId).toList(), "after ack the next batch comes");
        assertNotEquals(a.get(0).batchId(), c.get(0).batchId());
        assertEquals(1, sql.ack(c.get(0).batchId()));
    }

    @Test
    void receiveAndAckInOneTransactionMakesAWaitingSessionTakeTheNextBatch() throws Exception {
        // The exactly-once pattern (receive, side effects, ack in one transaction): a second worker
        // of the same consumer waits on the receive lock and then gets the NEXT batch, so no event
        // is processed twice and none is skipped.
        String q = "lock_exactly_once";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        List<Long> first = sql.sendBatch(q, "1a", "1b");
        sql.tick(q);
        List<Long> second = sql.sendBatch(q, "2a", "2b");
        sql.tick(q);

        ExecutorService pool = Executors.newFixedThreadPool(1);
        try (Connection s1 = sql.connect(); Connection s2 = sql.connect()) {
            int pid2 = pid(s2);
            s1.setAutoCommit(false);
            List<Msg> got1 = Sql.messages(s1, "select * from pgque.receive(?::text, ?::text, 100)", q, "c");
            try (var ps = Sql.prepare(s1, "select pgque.ack(?::bigint)", got1.get(0).batchId()); var rs = ps.executeQuery()) {
                rs.next();
                assertEquals(1, rs.getInt(1));
            }
            Future<Seen> other = pool.submit(() -> receiveInTransaction(q, "c", s2, Duration.ZERO));
            assertTrue(Sql.await(Duration.ofSeconds(5), Duration.ofMillis(20), () -> other.isDone()
                    || sql.oneLong("select count(*) from pg_stat_activity where pid = ? and wait_event_type = 'Lock'", pid2) == 1));
            assertFalse(other.isDone(), "session 2 waits while session 1's receive+ack transaction is open");
            s1.commit();

            Seen got2 = other.get(10, TimeUnit.SECONDS);
            assertEquals(first, got1.stream().map(Msg::msgId).toList());
            assertEquals(second, got2.msgIds(), "session 2 gets the next batch, not the one session 1 acked");
            assertNotEquals(Set.of(got1.get(0).batchId()), got2.batchIds());
            assertEquals(1, sql.ack(got2.batchIds().iterator().next()));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void receiveOfAnEmptyBatchFinishesItAtOnce() {
        String q = "empty_batch";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long emptyTick = sql.tick(q);
        assertEquals(List.of(), sql.receive(q, "c", 10));
        long[] cursor = sql.cursorAndLastTick(q, "c");
        assertEquals(emptyTick, cursor[0], "the cursor moved past the empty window");
        assertEquals(0, sql.oneLong("select count(*) from pgque.subscription where sub_batch is not null"
                + " and sub_queue = (select queue_id from pgque.queue where queue_name = ?)", q), "no batch left open");
        long id = sql.send(q, "after-empty");
        sql.tick(q);
        assertEquals(List.of(id), sql.receive(q, "c", 10).stream().map(Msg::msgId).toList());
    }
}

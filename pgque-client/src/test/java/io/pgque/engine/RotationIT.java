/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ENGINE.md 1.9: rotation truncates the oldest event table only once every consumer is past it.
 * A slow consumer pins rotation; it must never lose events it has not received yet.
 */
class RotationIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("rotation").installEngine().superuser());
    }

    private static int curTable(String q) {
        return sql.curTable(q);
    }

    private static void rotateSteps(String q) {
        sql.rotateSteps(q);
    }

    /** Attempts rotation (ticking and draining the fast consumer) until the active table changes. */
    private static boolean rotatesWithin(String q, Duration timeout, String... drainedConsumers) {
        int before = curTable(q);
        return Sql.await(timeout, Duration.ofMillis(100), () -> {
            sql.tick(q);
            for (String c : drainedConsumers) {
                sql.drain(q, c);
            }
            rotateSteps(q);
            return curTable(q) != before;
        });
    }

    @Test
    void slowConsumerPinsRotationAndLosesNothingThenRotationResumes() {
        String q = "rot";
        sql.createQueue(q);
        sql.subscribe(q, "fast");
        sql.subscribe(q, "slow");
        sql.config(q, "rotation_period", "1 second");
        assertEquals(3, sql.oneLong("select queue_ntables from pgque.get_queue_info(?)", q));

        // Phase 1: both consumers keep up, so rotation happens once the period has passed.
        List<Long> first = sql.sendBatch(q, "a1", "a2", "a3");
        sql.tick(q);
        assertEquals(first, sql.drain(q, "slow").stream().map(Msg::msgId).toList());
        int t0 = curTable(q);
        assertTrue(rotatesWithin(q, Duration.ofSeconds(10), "fast", "slow"),
                "with every consumer caught up, rotation must happen");
        int t1 = curTable(q);
        assertNotEquals(t0, t1);

        // Phase 2: the slow consumer stops. Events go to the new active table; keep producing,
        // ticking, draining the fast consumer and attempting rotation for more than ntables
        // rotation periods: an engine that ignored the slow cursor would have truncated every
        // table by then, including the one holding the slow consumer's backlog.
        List<Long> backlog = new ArrayList<>(sql.sendBatch(q, "b1", "b2", "b3"));
        sql.tick(q);
        sql.drain(q, "fast");
        long until = System.nanoTime() + Duration.ofMillis(4_500).toNanos();
        int attempts = 0;
        // Both: several rotation periods AND several attempts (a loaded machine may fit only two
        // attempts into the time window, which would prove little).
        while (attempts < 4 || System.nanoTime() < until) {
            backlog.add(sql.send(q, "c" + attempts));
            sql.tick(q);
            sql.drain(q, "fast");
            rotateSteps(q);
            attempts++;
            assertEquals(t1, curTable(q), "rotation must be skipped while the slow consumer needs the previous table"
                    + " (attempt " + attempts + ")");
            pause(150); // pace the loop: the window itself (several rotation periods) is what is tested
        }
        assertTrue(attempts >= 4, "enough rotation attempts: " + attempts);

        // The slow consumer finally reads everything it was owed, once, in order.
        List<Long> slowGot = sql.drain(q, "slow").stream().map(Msg::msgId).toList();
        assertEquals(backlog.size(), slowGot.size(), "every backlog event exactly once");
        assertEquals(new TreeSet<>(backlog), new TreeSet<>(slowGot));
        assertEquals(backlog.size(), storedRowsOf(q, backlog), "no backlog row was truncated");

        // Phase 3: with everyone past, rotation resumes.
        assertTrue(rotatesWithin(q, Duration.ofSeconds(10), "fast", "slow"),
                "once all consumers are past, rotation must happen again");
        assertNotEquals(t1, curTable(q));
    }

    /** A queue with one consumer "c", a 1-second rotation period and a first tick window behind it. */
    private static void rotatableQueue(String q) {
        sql.createQueue(q);
        sql.subscribe(q, "c");
        sql.config(q, "rotation_period", "1 second");
        sql.send(q, "warm-up");
        sql.tick(q);
        sql.drain(q, "c");
    }

    @Test
    void producerTransactionOpenAcrossATableSwitchIsStillDelivered() throws Exception {
        String q = "rot_long_rc";
        rotatableQueue(q);
        long id;
        try (Connection producer = sql.connect()) {
            producer.setAutoCommit(false);
            id = OrderingFanoutIT.sendOn(producer, q, "written-before-the-switch");
            int before = curTable(q);
            assertTrue(rotatesWithin(q, Duration.ofSeconds(10), "c"), "the switch happens while the producer is open");
            assertNotEquals(before, curTable(q));
            sql.tick(q);
            sql.drain(q, "c");
            producer.commit();
        }
        sql.tick(q);
        assertEquals(List.of(id), sql.drain(q, "c").stream().map(Msg::msgId).toList(),
                "the event, in the previous table, is found in the batch of its commit");
    }

    /**
     * A producer in a REPEATABLE READ transaction whose snapshot was taken before a table switch,
     * but whose first write (and so its txid) comes after rotation step 2: the event must still
     * be delivered. (If the active table were read from the producer's old snapshot, the row
     * would land in the previous table while its txid is above queue_switch_step2, and batch
     * reads that scan only the current table would never see it.)
     */
    @Test
    void repeatableReadProducerWhoseSnapshotPredatesASwitchStillHasItsEventDelivered() throws Exception {
        String q = "rot_rr";
        rotatableQueue(q);
        Long id = null;
        SQLException refused = null;
        try (Connection producer = sql.connect()) {
            producer.setAutoCommit(false);
            producer.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement st = producer.createStatement()) {
                st.execute("select 1"); // the transaction snapshot is taken here; no txid yet
            }
            int before = curTable(q);
            assertTrue(rotatesWithin(q, Duration.ofSeconds(10), "c"), "rotation happens");
            assertNotEquals(before, curTable(q));
            sql.tick(q);
            sql.drain(q, "c"); // the consumer's cursor is now past queue_switch_step2
            try {
                id = OrderingFanoutIT.sendOn(producer, q, "rr");
                producer.commit();
            } catch (SQLException e) {
                // refusing the insert (e.g. a serialization failure the producer retries) is acceptable
                refused = e;
                producer.rollback();
            }
        }
        sql.tick(q);
        List<Long> got = sql.drain(q, "c").stream().map(Msg::msgId).toList();
        if (refused != null) {
            assertEquals(List.of(), got, "refused send must not be delivered: " + refused.getMessage());
        } else {
            assertEquals(List.of(id), got, "a committed event must be delivered (it was written to table "
                    + sql.one(String.class, "select tableoid::regclass::text from "
                    + sql.one(String.class, "select queue_data_pfx from pgque.queue where queue_name = ?", q)
                    + " where ev_id = ?", id) + ", active table is " + curTable(q) + ")");
        }
    }

    /**
     * Issue 47 item 3, first case: a ticker login runs both rotation steps in one transaction
     * while a producer's send is open. The producer read the active table before the switch
     * committed, so its event is in the previous table, with a transaction id above step 1's.
     * Step 2 must not settle the switch in step 1's own transaction: a txid taken there would
     * tell readers that the previous table holds nothing past it, and the event would be lost.
     */
    @Test
    void bothStepsInOneTransactionLoseNoEventOfAnOpenProducer() throws Exception {
        anOpenProducersEventArrives("rot_one_tx", false);
    }

    /**
     * Issue 47 item 3, second case: step 2 in a transaction whose id was assigned before step 1
     * committed. Its own txid is older than the open producer's, so it must not be the bound.
     */
    @Test
    void stepTwoOfATransactionOlderThanTheSwitchLosesNoEventOfAnOpenProducer() throws Exception {
        anOpenProducersEventArrives("rot_old_tx", true);
    }

    /**
     * Switches the queue's table in a ticker's open transaction while a producer's send is open
     * (so the event goes to the previous table with a transaction id above step 1's), runs step 2
     * in the ticker's transaction or in one whose id is older than the switch, ticks and reads
     * while the producer is still open (the window after its commit then starts with a snapshot
     * whose xmin is the producer's), commits it, and asserts its event arrives.
     */
    private static void anOpenProducersEventArrives(String q, boolean stepTwoInAnOlderTransaction) throws Exception {
        rotatableQueue(q);
        long id;
        try (Connection early = sql.connect(); Connection ticker = sql.connect(); Connection producer = sql.connect()) {
            for (Connection c : List.of(early, ticker, producer)) {
                c.setAutoCommit(false);
            }
            countOn(early, "select pg_current_xact_id()::text::bigint"); // its txid, before the switch
            switchInOpenTransaction(ticker, q);
            id = OrderingFanoutIT.sendOn(producer, q, "written-to-the-previous-table");
            if (stepTwoInAnOlderTransaction) {
                ticker.commit();
                countOn(early, "select pgque.maint_rotate_tables_step2()");
            } else {
                assertEquals(0, countOn(ticker, "select pgque.maint_rotate_tables_step2()"),
                        "step 2 in step 1's transaction settles nothing");
                ticker.commit();
            }
            early.commit();
            sql.tick(q);
            sql.drain(q, "c");
            producer.commit();
        }
        sql.tick(q);
        assertEquals(List.of(id), sql.drain(q, "c").stream().map(Msg::msgId).toList());
    }

    /**
     * Issue 47 item 7: rotation never waits, it skips the round, so a stall is silent unless
     * status() says what holds it back: here a reader's LOCK ... IN ACCESS SHARE MODE on the table
     * to truncate, and a REPEATABLE READ producer's transaction holding the queue's row, each in a
     * session of its own.
     */
    @Test
    void statusSaysWhatHoldsBackADueRotation() throws Exception {
        String q = "rot_blocked";
        rotatableQueue(q);
        long queueId = sql.oneLong("select queue_id from pgque.queue where queue_name = ?", q);
        String next = "pgque.event_" + queueId + "_" + ((curTable(q) + 1) % 3);
        try (Connection locker = sql.connect(); Connection producer = sql.connect()) {
            locker.setAutoCommit(false);
            try (Statement st = locker.createStatement()) {
                st.execute("lock table " + next + " in access share mode");
            }
            producer.setAutoCommit(false);
            producer.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            OrderingFanoutIT.sendOn(producer, q, "held");
            assertTrue(Sql.await(Duration.ofSeconds(10), Duration.ofMillis(50), () -> {
                sql.rotateSteps(q);
                return "blocked".equals(rotationStatus(q).get("status"));
            }), "the rotation falls due and is blocked");
            String detail = (String) rotationStatus(q).get("detail");
            assertTrue(detail.contains("holds AccessShareLock on " + next), detail);
            assertTrue(detail.contains("holds the queue's row"), detail);
            producer.commit();
            locker.commit();
        }
        sql.tick(q);
        sql.drain(q, "c");
        assertTrue(rotatesWithin(q, Duration.ofSeconds(10), "c"), "once both are gone, rotation happens");
        assertEquals(java.util.Map.of(), rotationStatus(q), "and no rotation row is left");
    }

    private static java.util.Map<String, Object> rotationStatus(String q) {
        return sql.rows("select status, detail from pgque.status() where component = ?", "rotation " + q).stream()
                .findFirst().orElse(java.util.Map.of());
    }

    /** Runs rotation step 1 on {@code c}'s open transaction until it switches (once the period has passed). */
    private static void switchInOpenTransaction(Connection c, String q) throws SQLException {
        int before = curTable(q);
        assertTrue(Sql.await(Duration.ofSeconds(10), Duration.ofMillis(50), () -> {
            try {
                if (countOn(c, "select pgque.maint_rotate_tables_step1('" + q + "')") == 1) {
                    return true;
                }
                c.rollback();
                return false;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }), "rotation step 1 switches once the period has passed");
        assertEquals(before, curTable(q), "the switch is not committed yet");
    }

    private static long countOn(Connection c, String query) throws SQLException {
        try (Statement st = c.createStatement(); var rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** How many of {@code ids} are still stored in the queue's event tables. */
    private static long storedRowsOf(String q, List<Long> ids) {
        String pfx = sql.one(String.class, "select queue_data_pfx from pgque.queue where queue_name = ?", q);
        return sql.oneLong("select count(distinct ev_id) from " + pfx + " where ev_id = any(?::bigint[])",
                (Object) ids.stream().map(String::valueOf).toArray(String[]::new));
    }

    private static void pause(long millis) {
        Sql.pause(millis);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ENGINE.md 1.7 / 1.8 and decision 6: nack, retry re-injection, max_retries and the dead letter table. */
class RetryIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("retry").installEngine().superuser());
    }

    private static long retryRows(String q) {
        return sql.oneLong("select count(*) from pgque.retry_queue r join pgque.queue q on q.queue_id = r.ev_queue"
                + " where q.queue_name = ?", q);
    }

    @Test
    void nackedEventIsRedeliveredOnlyToTheConsumerThatNackedItWithRetryCountOne() {
        String q = "retry_owner";
        sql.createQueue(q);
        sql.subscribe(q, "c1");
        sql.subscribe(q, "c2");
        long id = sql.send(q, "type-x", "payload-x");
        sql.tick(q);

        List<Msg> c1 = sql.receive(q, "c1", 10);
        assertEquals(1, c1.size());
        assertNull(c1.get(0).retryCount(), "first delivery has retry_count NULL");
        assertEquals(1, sql.nack(c1.get(0), "0 seconds", null));
        assertEquals(1, sql.ack(c1.get(0).batchId()), "the batch stays open after nack and is acked normally");
        assertEquals(List.of(id), sql.drain(q, "c2").stream().map(Msg::msgId).toList());
        assertEquals(1, retryRows(q));

        assertTrue(sql.maintRetryEvents() >= 1, "the due retry row was moved");
        assertEquals(0, retryRows(q));
        sql.tick(q);

        List<Msg> again = sql.drain(q, "c1");
        assertEquals(1, again.size(), "redelivered once to c1: " + again);
        Msg m = again.get(0);
        assertEquals(id, m.msgId(), "the retried copy keeps its msg_id");
        assertEquals(Integer.valueOf(1), m.retryCount());
        assertEquals("type-x", m.type());
        assertEquals("payload-x", m.payload());
        assertEquals(c1.get(0).createdAt(), m.createdAt(), "created_at is the original ev_time");
        assertTrue(sql.drain(q, "c2").isEmpty(), "the retry copy is private to c1");
    }

    @Test
    void nackWithDefaultRetryAfterIsNotDueYet() {
        String q = "retry_later";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        sql.send(q, "later");
        sql.tick(q);
        List<Msg> got = sql.receive(q, "c", 10);
        assertEquals(1, sql.oneLong("select pgque.nack(?::bigint, row(?::bigint, ?::bigint, null, null, null, null,"
                + " null, null, null, null)::pgque.message)", got.get(0).batchId(), got.get(0).msgId(), got.get(0).batchId()));
        assertEquals(1, sql.ack(got.get(0).batchId()));
        assertEquals(1, retryRows(q));
        assertEquals(1, sql.oneLong("""
                select count(*) from pgque.retry_queue r join pgque.queue q on q.queue_id = r.ev_queue
                 where q.queue_name = ? and r.ev_retry_after > now() + interval '50 seconds'""", q),
                "default retry_after is 60 seconds");
        sql.maintRetryEvents();
        assertEquals(1, retryRows(q), "a not-yet-due retry stays in retry_queue");
        sql.tick(q);
        assertTrue(sql.drain(q, "c").isEmpty(), "and is not redelivered early");
    }

    @Test
    void nackTrustsOnlyMsgIdAndReadsTheEventFromTheBatch() {
        String q = "retry_forged";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long id = sql.send(q, "real-type", "real-payload");
        sql.tick(q);
        List<Msg> got = sql.receive(q, "c", 10);
        assertEquals(1, sql.nackForged(got.get(0).batchId(), id, "0 seconds", null));
        assertEquals(1, sql.ack(got.get(0).batchId()));
        assertTrue(sql.maintRetryEvents() >= 1);
        assertEquals(0, retryRows(q));
        sql.tick(q);
        List<Msg> again = sql.drain(q, "c");
        assertEquals(1, again.size(), "forged retry_count 99 must not dead-letter the event: " + again);
        assertEquals("real-type", again.get(0).type());
        assertEquals("real-payload", again.get(0).payload());
        assertNull(again.get(0).extra1());
        assertEquals(Integer.valueOf(1), again.get(0).retryCount());
    }

    @Test
    void afterMaxRetriesTheEventGoesToTheDeadLetterTableAndIsNotRedelivered() {
        String q = "retry_dlq";
        sql.createQueue(q);
        sql.config(q, "max_retries", "2");
        sql.subscribe(q, "c");
        long id = sql.send(q, "t", "doomed");
        sql.tick(q);

        List<Integer> retryCounts = new ArrayList<>();
        for (int delivery = 0; delivery < 3; delivery++) {
            List<Msg> got = sql.nextBatch(q, "c");
            assertEquals(1, got.size(), "delivery " + delivery + ": " + got);
            assertEquals(id, got.get(0).msgId());
            retryCounts.add(got.get(0).retryCount());
            assertEquals(1, sql.nack(got.get(0), "0 seconds", delivery == 2 ? "gave up" : null));
            assertEquals(1, sql.ack(got.get(0).batchId()));
            sql.maintRetryEvents();
            sql.tick(q);
        }
        assertEquals(java.util.Arrays.asList(null, 1, 2), retryCounts, "retry_count NULL, 1, 2");

        assertTrue(sql.drain(q, "c").isEmpty(), "a dead-lettered event is not redelivered");
        assertEquals(0, retryRows(q));
        List<Map<String, Object>> dead = sql.rows("select * from pgque.dlq_inspect(?)", q);
        assertEquals(1, dead.size(), "one dead letter: " + dead);
        Map<String, Object> d = dead.get(0);
        assertEquals(id, ((Number) d.get("ev_id")).longValue());
        assertEquals("doomed", d.get("ev_data"));
        assertEquals("t", d.get("ev_type"));
        assertEquals(2, ((Number) d.get("ev_retry")).intValue());
        assertEquals("gave up", d.get("dl_reason"));
        assertEquals(1, sql.oneLong("select count(*) from pgque.dead_letter where ev_id = ?", id));
    }

    @Test
    void maintRetryEventsMovesAllDueRowsInOneCall() {
        String q = "retry_many";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        List<Long> sent = sql.sendBatch(q, IntStream.range(0, 50).mapToObj(i -> "m" + i).toArray(String[]::new));
        sql.tick(q);
        List<Msg> got = sql.receive(q, "c", 100);
        assertEquals(50, got.size());
        for (Msg m : got) {
            assertEquals(1, sql.nack(m, "0 seconds", null));
        }
        assertEquals(1, sql.ack(got.get(0).batchId()));
        assertEquals(50, retryRows(q));

        assertEquals(50, sql.maintRetryEvents(), "all 50 due rows in one call (no 10-row cap)");
        assertEquals(0, retryRows(q));
        sql.tick(q);
        List<Msg> again = sql.drain(q, "c");
        assertEquals(sent.stream().sorted().toList(), again.stream().map(Msg::msgId).toList(), "all 50 redelivered, in msg_id order");
        assertTrue(again.stream().allMatch(m -> Integer.valueOf(1).equals(m.retryCount())));
    }

    @Test
    void unsubscribeDropsTheConsumersPendingRetries() {
        String q = "retry_unsub";
        sql.createQueue(q);
        sql.subscribe(q, "leaver");
        sql.subscribe(q, "other");
        sql.sendBatch(q, "x", "y");
        sql.tick(q);
        for (String consumer : List.of("leaver", "other")) {
            List<Msg> got = sql.receive(q, consumer, 10);
            for (Msg m : got) {
                assertEquals(1, sql.nack(m, "1 hour", null));
            }
            assertEquals(1, sql.ack(got.get(0).batchId()));
        }
        assertEquals(4, retryRows(q));
        assertEquals(1, sql.oneLong("select pgque.unsubscribe(?, ?)", q, "leaver"));
        assertEquals(2, retryRows(q), "only the unsubscribed consumer's retry rows are gone");
        assertEquals(0, sql.oneLong("select count(*) from pgque.consumer where co_name = 'leaver'"),
                "the consumer row goes when it has no subscription left");
    }
}

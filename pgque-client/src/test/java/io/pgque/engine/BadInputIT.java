/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.SQLWarning;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * sql-reference "Errors": every bad call fails with its documented SQLSTATE and leaves nothing
 * half-written.
 */
class BadInputIT {

    private static final String INVALID = "22023";
    private static final String RELATIONS = "select count(*) from pg_class where relnamespace = 'pgque'::regnamespace";

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("badinput").installEngine().superuser());
    }

    @Test
    void sendToAnUnknownQueueRaisesPQ001() {
        Sql.expectSqlState("PQ001", () -> sql.send("no_such_queue", "x"));
        Sql.expectSqlState("PQ001", () -> sql.send("no_such_queue", "type", "x"));
        Sql.expectSqlState("PQ001", () -> sql.exec("select pgque.send(?::text, ?::jsonb)", "no_such_queue", "{}"));
        Sql.expectSqlState("PQ001", () -> sql.sendBatch("no_such_queue", "x"));
        Sql.expectSqlState("PQ001", () -> sql.exec("select pgque.send_events(?::text, ?::text[], ?::text[])",
                "no_such_queue", new String[] {"t"}, new String[] {"x"}));
    }

    @Test
    void nullPayloadArrayRaises22023AndInsertsNothing() {
        String q = "bad_null_payloads";
        sql.createQueue(q);
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.send_batch(?::text, null::text[])", q));
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.send_batch(?::text, null::jsonb[])", q));
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.send_batch(?::text, 'type', null::text[])", q));
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.send_events(?::text, ?::text[], null::text[])",
                q, new String[] {"t"}));
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.send_events(?::text, null::text[], null::text[])", q));
        assertEquals(0, sql.storedEvents(q));
    }

    @Test
    void queueNameLongerThan57BytesRaises22023AndCreatesNothing() {
        long relations = sql.oneLong(RELATIONS);
        long queues = sql.oneLong("select count(*) from pgque.queue");
        String ascii58 = "q".repeat(58);
        String twoByte58 = "é".repeat(29); // 29 characters, 58 bytes: the limit is in bytes
        assertEquals(58, twoByte58.getBytes(StandardCharsets.UTF_8).length);

        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.create_queue(?)", ascii58));
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.create_queue(?)", twoByte58));
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.create_queue(null)"));

        assertEquals(queues, sql.oneLong("select count(*) from pgque.queue"), "no queue row");
        assertEquals(relations, sql.oneLong(RELATIONS), "no table, sequence or index created");

        // exactly 57 bytes is fine
        assertEquals(1, sql.oneLong("select pgque.create_queue(?)", "q".repeat(57)));
    }

    @Test
    void receiveWithMaxReturnBelowOneRaises22023() {
        String q = "bad_max_return";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long id = sql.send(q, "x");
        sql.tick(q);
        Sql.expectSqlState(INVALID, () -> sql.receive(q, "c", 0));
        Sql.expectSqlState(INVALID, () -> sql.receive(q, "c", -5));
        assertEquals(List.of(id), sql.drain(q, "c").stream().map(Msg::msgId).toList(), "the event was not lost");
    }

    @Test
    void ackOfAnUnknownBatchReturnsZeroWithAWarning() {
        SQLWarning warning = sql.exec("select pgque.ack(987654321)");
        assertNotNull(warning, "ack of an unknown batch warns");
        assertEquals(0, sql.ack(987_654_321L));
    }

    @Test
    void nackAndReadBatchOfAnUnknownBatchRaisePQ003() {
        Sql.expectSqlState("PQ003", () -> sql.nackForged(987_654_321L, 1, "0 seconds", null));
        Sql.expectSqlState("PQ003", () -> sql.readBatch(987_654_321L, null, 10));
    }

    @Test
    void nackOfAMessageThatIsNotInTheBatchRaisesPQ008() {
        String q = "bad_nack_msg";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long id = sql.send(q, "x");
        sql.tick(q);
        long batch = sql.receive(q, "c", 10).get(0).batchId();
        Sql.expectSqlState("PQ008", () -> sql.nackForged(batch, id + 1_000_000, "0 seconds", null));
        assertEquals(0, sql.oneLong("select count(*) from pgque.retry_queue where ev_id = ?", id + 1_000_000));
        assertEquals(1, sql.ack(batch));
    }

    @Test
    void receiveForAConsumerThatIsNotSubscribedRaisesPQ002() {
        String q = "bad_unsubscribed";
        sql.createQueue(q);
        sql.subscribe(q, "someone_else");
        Sql.expectSqlState("PQ002", () -> sql.receive(q, "stranger", 10));
        assertEquals(0, sql.oneLong("select count(*) from pgque.consumer where co_name = 'stranger'"),
                "no consumer row was created");
    }

    @Test
    void sendEventsWithMismatchedArrayLengthsRaises22023AndInsertsNothing() {
        String q = "bad_lengths";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        String[] three = {"a", "b", "c"};
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.send_events(?::text, ?::text[], ?::text[])",
                q, new String[] {"t1", "t2"}, three));
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.send_events(?::text, null, ?::text[], ?::text[])",
                q, three, new String[] {"k1"}));
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.send_events(?::text, null, ?::text[], null, ?::text[])",
                q, three, new String[] {"x", "y", "z", "extra"}));
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.send_events(?::text, null, ?::text[], null, null, ?::text[])",
                q, three, new String[] {}));
        Sql.expectSqlState(INVALID, () -> sql.exec("select pgque.send_events(?::text, null, ?::text[], null, null, null, ?::text[])",
                q, three, new String[] {"1", "2"}));

        assertEquals(0, sql.storedEvents(q), "nothing inserted");
        sql.tick(q);
        assertTrue(sql.drain(q, "c").isEmpty());
    }
}

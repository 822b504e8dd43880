/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * ENGINE.md 1.13 and sql-reference "Roles": deny by default; writer produces, reader consumes,
 * they are siblings; only admin operates queues and the ticker; PUBLIC can do nothing.
 */
class RolesIT {

    private static final String WRITER = "coretest_roles_writer";
    private static final String READER = "coretest_roles_reader";
    private static final String NOBODY = "coretest_roles_nobody";
    private static final String ADMIN = "coretest_roles_admin";
    private static final String DENIED = "42501";

    private static Sql sql;
    private static Sql writer;
    private static Sql reader;
    private static Sql nobody;
    private static Sql admin;

    @BeforeAll
    static void installEngineAndRoles() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("roles").installEngine();
        sql = new Sql(db.superuser());
        // roles are cluster-wide: create them only if an earlier run of this JVM has not
        for (String r : List.of(WRITER, READER, NOBODY, ADMIN)) {
            sql.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + r + "') then"
                    + " create role " + r + " login; end if; end $$");
        }
        sql.exec("grant pgque_writer to " + WRITER);
        sql.exec("grant pgque_reader to " + READER);
        sql.exec("grant pgque_admin to " + ADMIN);
        writer = new Sql(db.as(WRITER));
        reader = new Sql(db.as(READER));
        nobody = new Sql(db.as(NOBODY));
        admin = new Sql(db.as(ADMIN));
    }

    /** A queue with one consumer and one ticked event, set up by the superuser. Returns the batch-ready queue. */
    private static String queueWithTickedEvent(String q) {
        sql.createQueue(q);
        sql.subscribe(q, "c");
        sql.send(q, "ready");
        sql.tick(q);
        return q;
    }

    @Test
    void writerCanSendButCannotReceiveOrAck() {
        String q = queueWithTickedEvent("roles_writer");
        long id = writer.send(q, "from-writer");
        assertEquals(1, writer.oneLong("select array_length(pgque.send_batch(?::text, ?::text[]), 1)", q, new String[] {"w1"}));
        assertEquals(1, writer.longArray("select pgque.send_events(?::text, ?::text[], ?::text[])", q,
                new String[] {"t"}, new String[] {"w2"}).size());

        Sql.expectSqlState(DENIED, () -> writer.receive(q, "c", 10));
        long batch = sql.receive(q, "c", 10).get(0).batchId();
        Sql.expectSqlState(DENIED, () -> writer.ack(batch));
        Sql.expectSqlState(DENIED, () -> writer.readBatch(batch, null, 10));
        Sql.expectSqlState(DENIED, () -> writer.nackForged(batch, id, "0 seconds", null));
        Sql.expectSqlState(DENIED, () -> writer.exec("select pgque.subscribe(?, ?)", q, "w"));
        Sql.expectSqlState(DENIED, () -> writer.exec("select count(*) from pgque.subscription"));
        assertEquals(1, sql.ack(batch), "the writer's failed ack did not finish the batch");

        sql.tick(q);
        assertEquals(3, sql.drain(q, "c").size(), "the writer's three sends arrived");
        assertNotNull(id);
    }

    @Test
    void readerCanReceiveAndAckButCannotSend() {
        String q = queueWithTickedEvent("roles_reader");
        assertEquals(1, reader.oneLong("select pgque.subscribe(?, ?)", q, "r"));
        List<Msg> got = reader.receive(q, "c", 10);
        assertEquals(1, got.size());
        assertEquals(got, reader.readBatch(got.get(0).batchId(), null, 10));
        assertEquals(1, reader.nack(got.get(0), "0 seconds", null));
        assertEquals(1, reader.ack(got.get(0).batchId()));
        reader.rows("select * from pgque.get_queue_info(?)", q);
        reader.rows("select * from pgque.get_consumer_info(?)", q);
        reader.rows("select * from pgque.dlq_inspect(?)", q);
        assertNotNull(reader.one(String.class, "select pgque.version()"));

        Sql.expectSqlState(DENIED, () -> reader.send(q, "nope"));
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.send_batch(?::text, ?::text[])", q, new String[] {"x"}));
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.send_events(?::text, ?::text[], ?::text[])", q,
                new String[] {"t"}, new String[] {"x"}));
        Sql.expectSqlState(DENIED, () -> reader.exec("select pgque.insert_event(?, 't', 'x')", q));
        Sql.expectSqlState(DENIED, () -> reader.exec("insert into pgque.retry_queue default values"));
        sql.tick(q);
        assertEquals(0, sql.drain(q, "c").size(), "nothing was sent by the reader");
    }

    @Test
    void roleWithoutPgqueRolesCanDoNothing() {
        String q = queueWithTickedEvent("roles_nobody");
        Sql.expectSqlState(DENIED, () -> nobody.send(q, "x"));
        Sql.expectSqlState(DENIED, () -> nobody.receive(q, "c", 10));
        Sql.expectSqlState(DENIED, () -> nobody.exec("select pgque.subscribe(?, ?)", q, "n"));
        Sql.expectSqlState(DENIED, () -> nobody.exec("select pgque.version()"));
        Sql.expectSqlState(DENIED, () -> nobody.exec("select * from pgque.get_queue_info()"));
        for (String table : List.of("queue", "consumer", "subscription", "tick", "retry_queue", "dead_letter")) {
            Sql.expectSqlState(DENIED, () -> nobody.exec("select count(*) from pgque." + table));
        }
        String pfx = sql.one(String.class, "select queue_data_pfx from pgque.queue where queue_name = ?", q);
        Sql.expectSqlState(DENIED, () -> nobody.exec("select count(*) from " + pfx));
    }

    @Test
    void onlyAdminMayCreateQueuesAndRunTheTicker() {
        String q = queueWithTickedEvent("roles_admin_only");
        for (Sql who : List.of(writer, reader, nobody)) {
            Sql.expectSqlState(DENIED, () -> who.exec("select pgque.create_queue(?)", q + "_new"));
            Sql.expectSqlState(DENIED, () -> who.exec("select pgque.ticker(?::text)", q));
            Sql.expectSqlState(DENIED, () -> who.exec("select pgque.ticker()"));
            Sql.expectSqlState(DENIED, () -> who.exec("select pgque.force_next_tick(?)", q));
            Sql.expectSqlState(DENIED, () -> who.exec("select pgque.drop_queue(?)", q));
            Sql.expectSqlState(DENIED, () -> who.exec("select pgque.set_queue_config(?, 'max_retries', '1')", q));
            Sql.expectSqlState(DENIED, () -> who.exec("select pgque.maint()"));
            Sql.expectSqlState(DENIED, () -> who.exec("select pgque.maint_retry_events()"));
        }
        assertEquals(0, sql.oneLong("select count(*) from pgque.queue where queue_name = ?", q + "_new"));

        // the admin role can do all of it
        assertEquals(1, admin.oneLong("select pgque.create_queue(?)", q + "_new"));
        admin.subscribe(q + "_new", "a");
        long id = admin.send(q + "_new", "by-admin");
        admin.tick(q + "_new");
        List<Msg> got = admin.receive(q + "_new", "a", 10);
        assertEquals(List.of(id), got.stream().map(Msg::msgId).toList());
        assertEquals(1, admin.ack(got.get(0).batchId()));
    }
}

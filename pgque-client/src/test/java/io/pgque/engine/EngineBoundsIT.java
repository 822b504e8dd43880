/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 47 item 7: the bounds and smaller holes a DBA found, each closed: a lease TTL is capped
 * per queue, a read-ahead opens only batch ids the engine handed out, an admin assigns and
 * releases sink connector names (bounded per login), a writer's get_queue_info lists only the
 * queue it names, and uninstall refuses a queue holding events no consumer subscribed to. What
 * blocks a due rotation is in RotationIT.
 */
class EngineBoundsIT {

    private static final String ADMIN = "eb_admin";
    private static final String READER = "eb_reader";
    private static final String WRITER = "eb_writer";
    private static final String OTHER_WRITER = "eb_writer2";

    private static EmbeddedPg.TestDatabase db;
    private static Sql sql;
    private static Sql admin;
    private static Sql reader;
    private static Sql writer;
    private static Sql otherWriter;

    @BeforeAll
    static void install() {
        db = EmbeddedPg.newDatabase("engine_bounds").installEngine();
        sql = new Sql(db.superuser());
        for (String r : List.of(ADMIN, READER, WRITER, OTHER_WRITER)) {
            sql.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + r + "') then"
                    + " create role " + r + " login; end if; end $$");
        }
        sql.exec("grant pgque_admin to " + ADMIN);
        sql.exec("grant pgque_reader to " + READER);
        sql.exec("grant pgque_writer to " + WRITER + ", " + OTHER_WRITER);
        admin = new Sql(db.as(ADMIN));
        reader = new Sql(db.as(READER));
        writer = new Sql(db.as(WRITER));
        otherWriter = new Sql(db.as(OTHER_WRITER));
    }

    @Test
    void aLeaseIsNeverLongerThanTheQueueAllowsNorEndsInThePast() {
        String q = "eb_lease";
        sql.createQueue(q);
        reader.exec("select pgque.subscribe_partitioned(?, 'c', 1)", q);
        SQLException tooLong = Sql.expectSqlState("22023", () -> reader.exec("select pgque.claim_slot(?, 'c', 0, 'w', '100 years')", q));
        assertTrue(tooLong.getMessage().contains("lease_max_ttl"), tooLong.getMessage());
        // One second by PostgreSQL's interval rules, a deadline in the past by the calendar.
        Sql.expectSqlState("22023", () -> reader.exec("select pgque.claim_slot(?, 'c', 0, 'w', '-1 year 360 days 1 second')", q));
        assertEquals(0, sql.oneLong("select count(*) from pgque.partition_slot where lease_owner is not null"
                + " and queue_id = (select queue_id from pgque.queue where queue_name = ?)", q), "nothing claimed");
        assertEquals(1, reader.oneLong("select pgque.claim_slot(?, 'c', 0, 'w', '1 hour')", q), "the default bound is an hour");
        admin.exec("select pgque.set_queue_config(?, 'lease_max_ttl', '10 minutes')", q);
        Sql.expectSqlState("22023", () -> reader.exec("select pgque.claim_slot(?, 'c', 0, 'w', '1 hour')", q));
        assertEquals(1, reader.oneLong("select pgque.claim_slot(?, 'c', 0, 'w', '10 minutes')", q));
    }

    @Test
    void aReadAheadOpensOnlyABatchIdTheEngineHandedOut() {
        // The attack: a batch id the sequence has not given out yet, planted as a slot's open
        // batch, made the next consumer to get that id fail its receive with a duplicate key.
        String q = "eb_read_ahead";
        sql.createQueue(q);
        reader.exec("select pgque.subscribe_partitioned(?, 'c', 1)", q);
        reader.subscribe(q, "plain");
        reader.exec("select pgque.claim_slot(?, 'c', 0, 'w', '1 minute')", q);
        sql.send(q, "a");
        long from = sql.oneLong("select last_tick from pgque.partition_slot_status where queue_name = ?", q);
        long to = sql.tick(q);
        long future = sql.oneLong("select last_value + 1 from pgque.batch_id_seq");
        Sql.expectSqlState("22023", () -> reader.exec("select pgque.open_read_ahead_partitioned(?, 'c', 0, 1, 'w', ?, ?, ?)",
                q, future, from, to));
        assertEquals(1, reader.receive(q, "plain", 10).size(), "the next batch id is the plain consumer's, whole");

        // An id another subscription's open batch holds: refused quietly, the reader receives instead.
        long taken = reader.oneLong("select current_batch from pgque.get_consumer_info(?, 'plain')", q);
        assertEquals(Boolean.FALSE, reader.one(Boolean.class,
                "select pgque.open_read_ahead_partitioned(?, 'c', 0, 1, 'w', ?, ?, ?)", q, taken, from, to));
    }

    @Test
    void anAdminAssignsAndReleasesSinkConnectorNamesAndALoginClaimsAtMostAThousand() {
        String commit = "select pgque.sink_commit_offsets(?, array['t'], array[0], array[null]::bigint[], array[1::bigint])";
        // Assigned before the real sink first runs, the name is not another writer's to take.
        assertNull(admin.one(String.class, "select pgque.sink_assign_connector('eb-orders', ?)", WRITER));
        Sql.expectSqlState("42501", () -> otherWriter.exec(commit, "eb-orders"));
        writer.exec(commit, "eb-orders");
        Sql.expectSqlState("42704", () -> admin.exec("select pgque.sink_assign_connector('eb-orders', 'eb_nobody')"));

        // A name squatted by another writer is released by an admin, and free for the next commit.
        otherWriter.exec(commit, "eb-squatted");
        Sql.expectSqlState("42501", () -> writer.exec(commit, "eb-squatted"));
        Sql.expectSqlState("42501", () -> writer.exec("select pgque.sink_release_connector('eb-squatted')"));
        assertEquals(1, admin.oneLong("select pgque.sink_release_connector('eb-squatted')"));
        writer.exec(commit, "eb-squatted");
        assertEquals(WRITER, sql.one(String.class, "select owner_role from pgque.sink_offset_owner where connector = 'eb-squatted'"));

        // No login fills the table: its thousandth-and-first name is refused.
        sql.exec("insert into pgque.sink_offset_owner (connector, owner_role)"
                + " select 'eb-filler-' || i, ? from generate_series(1, 1000) i", OTHER_WRITER);
        Sql.expectSqlState("54000", () -> otherWriter.exec(commit, "eb-one-more"));
        sql.exec("delete from pgque.sink_offset_owner where connector like 'eb-filler-%'");
        otherWriter.exec(commit, "eb-one-more");
    }

    @Test
    void aWritersQueueInfoIsOfTheQueueItNames() {
        sql.createQueue("eb_info_a");
        sql.createQueue("eb_info_b");
        assertEquals(List.of(), writer.rows("select queue_name from pgque.get_queue_info(null::text)"));
        assertEquals(List.of(Map.of("queue_name", "eb_info_a")),
                writer.rows("select queue_name from pgque.get_queue_info('eb_info_a')"));
        assertTrue(reader.oneLong("select count(*) from pgque.get_queue_info()") >= 2, "a reader sees every queue");
        assertTrue(admin.oneLong("select count(*) from pgque.get_queue_info(null::text)") >= 2, "and an admin");
    }

    @Test
    void uninstallRefusesAQueueHoldingEventsNoConsumerSubscribedTo() throws SQLException {
        EmbeddedPg.TestDatabase other = EmbeddedPg.newDatabase("engine_bounds_uninstall").installEngine();
        Sql owner = new Sql(other.superuser());
        owner.createQueue("eb_nobody_reads");
        owner.send("eb_nobody_reads", "kept");
        SQLException refused = Sql.expectSqlState("55006", () -> owner.exec("select pgque.uninstall()"));
        assertTrue(refused.getMessage().contains("1 event(s) and no consumer"), refused.getMessage());
        assertNotNull(owner.one(String.class, "select pgque.version()"), "still installed");
        owner.exec("select pgque.uninstall(true)");
    }
}

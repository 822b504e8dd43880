/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kafka offsets stored with the events: a writer moves an offset only from the value it
 * believes is stored, so a sink task that lost its partition cannot overwrite its successor.
 */
class SinkOffsetsIT {

    /** Fenced: its own SQLSTATE, not 40001, which clients take for "simply try again". */
    private static final String FENCED = "PQ010";
    private static final String DENIED = "42501";
    private static final String OWNER = "sinkoffsets_writer_owner";
    private static final String OTHER = "sinkoffsets_writer_other";
    private static final String ADMIN = "sinkoffsets_admin";

    private static Sql sql;
    private static EmbeddedPg.TestDatabase db;

    @BeforeAll
    static void installEngine() {
        db = EmbeddedPg.newDatabase("sinkoffsets").installEngine();
        sql = new Sql(db.superuser());
        // Roles are cluster-wide: create them only if an earlier test class of this JVM has not.
        for (String role : List.of(OWNER, OTHER, ADMIN)) {
            sql.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + role + "') then"
                    + " create role " + role + " login; end if; end $$");
        }
        sql.exec("grant pgque_writer to " + OWNER);
        sql.exec("grant pgque_writer to " + OTHER);
        sql.exec("grant pgque_admin to " + ADMIN);
    }

    private static void commit(Connection c, String connector, String topic, int partition, Long expected, long next)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "select pgque.sink_commit_offsets(?, array[?], array[?]::int4[], array[?]::bigint[], array[?]::bigint[])")) {
            ps.setString(1, connector);
            ps.setString(2, topic);
            ps.setInt(3, partition);
            ps.setObject(4, expected);
            ps.setLong(5, next);
            ps.executeQuery().close();
        }
    }

    private static Map<String, Object> stored(String connector, int partition) {
        List<Map<String, Object>> rows = sql.rows(
                "select * from pgque.sink_offsets(?) where kafka_partition = ?", connector, partition);
        return rows.isEmpty() ? null : rows.get(0);
    }

    @Test
    void offsetsMoveFromTheExpectedValueAndCommitWithTheEvents() throws SQLException {
        try (Connection c = sql.connect()) {
            commit(c, "conn-a", "orders", 0, null, 10);
            commit(c, "conn-a", "orders", 0, 10L, 25);
        }
        assertEquals(25L, stored("conn-a", 0).get("next_offset"));

        // Rolled back with the events: nothing moves.
        try (Connection c = sql.connect()) {
            c.setAutoCommit(false);
            commit(c, "conn-a", "orders", 0, 25L, 40);
            c.rollback();
        }
        assertEquals(25L, stored("conn-a", 0).get("next_offset"));
    }

    @Test
    void aWriterWithAStaleViewIsRefused() throws SQLException {
        try (Connection c = sql.connect()) {
            commit(c, "conn-b", "orders", 1, null, 5);
            commit(c, "conn-b", "orders", 1, 5L, 9);
            Sql.expectSqlState(FENCED, () -> commit(c, "conn-b", "orders", 1, 5L, 12));
            Sql.expectSqlState(FENCED, () -> commit(c, "conn-b", "orders", 1, null, 12));
        }
        assertEquals(9L, stored("conn-b", 1).get("next_offset"));
    }

    @Test
    void twoTasksRacingTheFirstWriteOfAPartition_oneWinsTheOtherIsRefused() throws Exception {
        try (Connection a = sql.connect(); Connection b = sql.connect()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            commit(a, "conn-c", "orders", 2, null, 100);
            // b's first write waits on a's uncommitted row ...
            CompletableFuture<Throwable> racing = CompletableFuture.supplyAsync(() -> {
                try {
                    commit(b, "conn-c", "orders", 2, null, 50);
                    b.commit();
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            assertTrue(Sql.await(java.time.Duration.ofSeconds(10), java.time.Duration.ofMillis(20),
                    () -> sql.oneLong("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                            + " and query like '%sink_commit_offsets%'") > 0), "second writer never waited");
            a.commit();
            // ... and is refused once a's write is visible, instead of overwriting it.
            Throwable failure = racing.get(10, TimeUnit.SECONDS);
            assertTrue(failure instanceof SQLException, "second writer was not refused");
            assertEquals(FENCED, ((SQLException) failure).getSQLState());
            b.rollback();
        }
        assertEquals(100L, stored("conn-c", 2).get("next_offset"));
    }

    /**
     * A connector's offsets belong to the role that wrote them first: another writer may neither
     * move, set nor forget them (it could otherwise make that connector skip or replay data);
     * their owner and an admin may.
     */
    @Test
    void onlyTheOwnerOrAnAdminMayChangeAConnectorsOffsets() throws SQLException {
        Sql owner = new Sql(db.as(OWNER));
        Sql other = new Sql(db.as(OTHER));
        Sql admin = new Sql(db.as(ADMIN));
        try (Connection c = owner.connect()) {
            commit(c, "conn-h", "orders", 0, null, 10);
        }

        String set = "select pgque.sink_set_offsets('conn-h', array['orders'], array[0], array[3]::bigint[])";
        String reset = "select pgque.sink_reset_offsets('conn-h')";
        SQLException refused = Sql.expectSqlState(DENIED, () -> other.exec(set));
        assertTrue(refused.getMessage().contains("belong to role " + OWNER), refused.getMessage());
        Sql.expectSqlState(DENIED, () -> other.exec(reset));
        try (Connection c = other.connect()) {
            Sql.expectSqlState(DENIED, () -> commit(c, "conn-h", "orders", 0, 10L, 11));
        }
        assertEquals(10L, stored("conn-h", 0).get("next_offset"), "the refused calls changed nothing");
        // Another connector's name is free for the other writer.
        try (Connection c = other.connect()) {
            commit(c, "conn-i", "orders", 0, null, 1);
        }

        assertEquals(1L, owner.oneLong(set));
        assertEquals(3L, stored("conn-h", 0).get("next_offset"));
        assertEquals(1L, admin.oneLong("select pgque.sink_set_offsets('conn-h', array['orders'], array[0], array[4]::bigint[])"));
        assertEquals(4L, stored("conn-h", 0).get("next_offset"));
        assertEquals(1L, admin.oneLong(reset));
        assertNull(stored("conn-h", 0));
    }

    @Test
    void eachTopicPartitionOncePerCall() {
        Sql.expectSqlState("22023", () -> sql.exec(
                "select pgque.sink_commit_offsets('conn-d', array['t','t'], array[0,0], array[null,null]::bigint[], array[1,2])"));
    }
    @Test
    void anOperatorSetsAndForgetsOffsetsWhateverIsStored() throws SQLException {
        try (Connection c = sql.connect()) {
            commit(c, "conn-e", "orders", 0, null, 10);
            commit(c, "conn-e", "orders", 1, null, 20);
        }
        // Partition 0 moved back, 1 forgotten, 2 set for the first time.
        assertEquals(3L, sql.oneLong("select pgque.sink_set_offsets('conn-e', array['orders','orders','orders'], "
                + "array[0,1,2], array[3,null,7]::bigint[])"));
        assertEquals(3L, stored("conn-e", 0).get("next_offset"));
        assertNull(stored("conn-e", 1));
        assertEquals(7L, stored("conn-e", 2).get("next_offset"));
        // A task resumes from what was set: its expected value is the new one.
        try (Connection c = sql.connect()) {
            commit(c, "conn-e", "orders", 0, 3L, 11);
            commit(c, "conn-e", "orders", 1, null, 21);
        }
        assertEquals(11L, stored("conn-e", 0).get("next_offset"));
    }

    @Test
    void aResetForgetsEveryPartitionOfThatConnectorOnly() throws SQLException {
        try (Connection c = sql.connect()) {
            commit(c, "conn-f", "orders", 0, null, 10);
            commit(c, "conn-f", "refunds", 3, null, 4);
            commit(c, "conn-g", "orders", 0, null, 99);
        }
        assertEquals(2L, sql.oneLong("select pgque.sink_reset_offsets('conn-f')"));
        assertEquals(0L, sql.oneLong("select count(*) from pgque.sink_offsets('conn-f')"));
        assertEquals(99L, stored("conn-g", 0).get("next_offset"), "another connector's offsets stay");
        assertEquals(0L, sql.oneLong("select pgque.sink_reset_offsets('conn-f')"), "a second reset finds nothing");
    }

    @Test
    void settingOffsetsRefusesWhatCannotBeAnOffset() {
        Sql.expectSqlState("22023", () -> sql.exec(
                "select pgque.sink_set_offsets('conn-h', array['t'], array[0], array[-1]::bigint[])"));
        Sql.expectSqlState("22023", () -> sql.exec(
                "select pgque.sink_set_offsets('conn-h', array['t','t'], array[0,0], array[1,2]::bigint[])"));
        Sql.expectSqlState("22023", () -> sql.exec(
                "select pgque.sink_set_offsets('conn-h', array['t'], array[0,1], array[1,2]::bigint[])"));
        Sql.expectSqlState("22023", () -> sql.exec("select pgque.sink_reset_offsets('')"));
    }
}

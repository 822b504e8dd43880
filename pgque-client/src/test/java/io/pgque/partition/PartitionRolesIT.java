/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.partition.Pq.Msg;
import io.pgque.testing.EmbeddedPg;
import io.pgque.testing.EmbeddedPg.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Grants (ENGINE.md 1.13, 3, 4): the reader consumes partitions, the writer produces with
 * send_idem, neither can do the other's job, and no application role touches the internal
 * tables pgque.idem, pgque.partition_slot and pgque.partition_consumer directly (admin may only
 * read the partition tables).
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PartitionRolesIT {

    private static DataSource su;
    private static DataSource reader;
    private static DataSource writer;
    private static DataSource admin;
    private static final String Q = "roles_q";

    @BeforeAll
    static void install() {
        TestDatabase db = EmbeddedPg.newDatabase("pkeys_roles").installEngine();
        su = db.superuser();
        String p = db.name();
        reader = login(db, p + "_reader", "pgque_reader");
        writer = login(db, p + "_writer", "pgque_writer");
        admin = login(db, p + "_admin", "pgque_admin");
        Pq.createQueue(su, Q);
        Pq.subscribePartitioned(su, Q, "w", 2);
    }

    private static DataSource login(TestDatabase db, String user, String role) {
        Db.exec(db.superuser(), "create role " + user + " login");
        Db.exec(db.superuser(), "grant " + role + " to " + user);
        return db.as(user);
    }

    // ------------------------------------------------------------------ reader

    @Test
    void reader_can_claim_receive_page_nack_ack_release_and_read_the_view() {
        String q = "roles_reader_q"; // own queue: other tests send to Q
        Pq.createQueue(su, q);
        Pq.subscribePartitioned(reader, q, "w", 2);
        String key = "tenant-r";
        int slot = Pq.expectedSlot(su, key, 2);
        Pq.send(writer, q, "evt", "a", key);
        Pq.send(writer, q, "evt", "b", key);
        Pq.tick(su, q);
        assertNotNull(Pq.claim(reader, q, "w", slot, "reader-1"));
        List<Msg> page = Pq.receive(reader, q, "w", slot, 2, "reader-1", 1);
        assertEquals(1, page.size());
        assertEquals(1, Pq.readBatch(reader, q, "w", slot, 2, "reader-1", page.get(0).msgId(), 10).size());
        assertEquals(1, Pq.nack(reader, q, "w", slot, 2, "reader-1", page.get(0), "1 hour"));
        assertEquals(1, Pq.ack(reader, q, "w", slot, 2, "reader-1"));
        assertEquals(Boolean.TRUE, Pq.release(reader, q, "w", slot, "reader-1"));
        assertEquals(2, Pq.status(reader, q, "w").size());
    }

    @Test
    void reader_can_subscribe_and_unsubscribe_partitioned() {
        Pq.subscribePartitioned(reader, Q, "by-reader", 2);
        Pq.subscribeSlot(reader, Q, "by-reader-slot", 0, 1);
        Db.exec(reader, "select pgque.unsubscribe_slot(?::text, ?::text, ?::int)", Q, "by-reader-slot", 0);
        Db.exec(reader, "select pgque.unsubscribe_partitioned(?::text, ?::text)", Q, "by-reader");
    }

    @Test
    void reader_cannot_send_idem() {
        Db.assertSqlState("42501", () -> Pq.sendIdem(reader, Q, "evt", "p", "k-reader", "1 hour"));
        Db.assertSqlState("42501", () -> Pq.sendIdemEvents(reader, Q, new String[]{"t"}, new String[]{"p"},
                new String[]{"k-reader"}, "1 hour", null, null, null));
    }

    // ------------------------------------------------------------------ writer

    @Test
    void writer_can_send_idem_and_send_idem_events() {
        assertEquals(Boolean.FALSE, Pq.sendIdem(writer, Q, "evt", "p", "k-writer", "1 hour").deduped());
        assertEquals(Boolean.FALSE, Db.with(writer, c -> Pq.sendIdemJson(c, Q, "evt", "{}", "k-writer-json", "1 hour")).deduped());
        assertEquals(1, Pq.sendIdemEvents(writer, Q, new String[]{"t"}, new String[]{"p"}, new String[]{"k-writer-batch"},
                "1 hour", new String[]{"pk"}, null, null).size());
    }

    @Test
    void writer_cannot_claim_receive_ack_or_subscribe_partitioned() {
        Db.assertSqlState("42501", () -> Pq.claim(writer, Q, "w", 0, "writer-1"));
        Db.assertSqlState("42501", () -> Pq.receive(writer, Q, "w", 0, 2, "writer-1", 10));
        Db.assertSqlState("42501", () -> Pq.readBatch(writer, Q, "w", 0, 2, "writer-1", 0, 10));
        Db.assertSqlState("42501", () -> Pq.ack(writer, Q, "w", 0, 2, "writer-1"));
        Db.assertSqlState("42501", () -> Pq.release(writer, Q, "w", 0, "writer-1"));
        Db.assertSqlState("42501", () -> Pq.subscribePartitioned(writer, Q, "by-writer", 2));
    }

    @Test
    void app_roles_cannot_run_maint_idem() {
        Db.assertSqlState("42501", () -> Db.exec(reader, "select pgque.maint_idem()"));
        Db.assertSqlState("42501", () -> Db.exec(writer, "select pgque.maint_idem(?::text)", Q));
        Db.exec(admin, "select pgque.maint_idem()");
    }

    @Test
    void no_app_role_can_call_the_internal_helpers() {
        for (DataSource role : List.of(reader, writer, admin)) {
            Db.assertSqlState("42501", () -> Db.rows(role, "select pgque.slot_guard(?::text, 'w', 0, 2, 'x')", Q));
            Db.assertSqlState("42501", () -> Db.rows(role, "select pgque.idem_prepare(?::text, interval '1 hour')", Q));
            Db.assertSqlState("42501", () -> Db.rows(role,
                    "select pgque.partition_pin(q, 'forged', 3) from pgque.queue q where q.queue_name = ?", Q));
        }
    }

    // ------------------------------------------------------------------ internal tables

    @Test
    void no_app_role_can_select_or_insert_idem() {
        for (DataSource role : List.of(reader, writer, admin)) {
            Db.assertSqlState("42501", () -> Db.rows(role, "select * from pgque.idem"));
            Db.assertSqlState("42501", () -> Db.exec(role,
                    "insert into pgque.idem (queue_id, idem_key, event_id, expires_at) select queue_id, 'forged', null, now() + interval '1 hour' from pgque.queue limit 1"));
        }
    }

    @Test
    void reader_and_writer_cannot_select_or_insert_partition_tables() {
        for (DataSource role : List.of(reader, writer)) {
            for (String table : List.of("pgque.partition_slot", "pgque.partition_consumer")) {
                Db.assertSqlState("42501", () -> Db.rows(role, "select * from " + table));
            }
            Db.assertSqlState("42501", () -> Db.exec(role,
                    "insert into pgque.partition_consumer (queue_id, co_name, n) select queue_id, 'forged', 2 from pgque.queue limit 1"));
            Db.assertSqlState("42501", () -> Db.exec(role,
                    "update pgque.partition_slot set lease_owner = 'forged'"));
        }
    }

    @Test
    void admin_may_only_read_partition_tables() {
        assertEquals(2, Db.count(admin, "select count(*) from pgque.partition_slot s join pgque.queue q on q.queue_id = s.queue_id"
                + " where q.queue_name = ? and s.co_name = 'w'", Q));
        Db.rows(admin, "select * from pgque.partition_consumer");
        Db.assertSqlState("42501", () -> Db.exec(admin, "update pgque.partition_slot set lease_owner = 'forged'"));
        Db.assertSqlState("42501", () -> Db.exec(admin,
                "insert into pgque.partition_consumer (queue_id, co_name, n) select queue_id, 'forged', 2 from pgque.queue limit 1"));
        Db.assertSqlState("42501", () -> Db.exec(admin, "delete from pgque.partition_slot"));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 47 item 5: an idempotency claim is bounded. A queue's keys are shared by all its writers,
 * so no writer may claim one for longer than the queue's {@code idem_max_ttl} (30 days unless an
 * admin sets it), and an admin lists and releases claims.
 */
class IdemBoundsIT {

    private static final String ADMIN = "ib_admin";
    private static final String WRITER = "ib_writer";
    private static final String OTHER_WRITER = "ib_writer2";
    private static DataSource superuser;
    private static DataSource admin;
    private static DataSource writer;
    private static DataSource otherWriter;

    @BeforeAll
    static void install() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("idem_bounds").installEngine();
        superuser = db.superuser();
        for (String login : List.of(ADMIN, WRITER, OTHER_WRITER)) {
            Db.exec(superuser, "do $$ begin if not exists (select 1 from pg_roles where rolname = '" + login + "') then"
                    + " create role " + login + " login; end if; end $$");
        }
        Db.exec(superuser, "grant pgque_admin to " + ADMIN);
        Db.exec(superuser, "grant pgque_writer to " + WRITER + ", " + OTHER_WRITER);
        admin = db.as(ADMIN);
        writer = db.as(WRITER);
        otherWriter = db.as(OTHER_WRITER);
    }

    @Test
    void aClaimLongerThanTheQueueAllowsIsRefusedAndTheAdminSetsTheBound() {
        String q = "ib_ttl";
        Pq.createQueue(superuser, q);
        SQLException refused = Db.assertSqlState("22023", () -> Pq.sendIdem(writer, q, "t", "x", "order-42", "1000 years"));
        assertTrue(refused.getMessage().contains("idem_max_ttl"), refused.getMessage());
        assertEquals(0, Pq.eventsWithIdemKey(superuser, q, "order-42"), "nothing written, nothing claimed");
        Db.assertSqlState("22023", () -> Db.exec(writer, "select * from pgque.send_idem_events(?, array['t'], array['x'],"
                + " array['order-42'], '31 days')", q));

        assertFalse(Pq.sendIdem(writer, q, "t", "x", "order-42", "30 days").deduped(), "the default bound is 30 days");
        Db.exec(admin, "select pgque.set_queue_config(?, 'idem_max_ttl', '1 hour')", q);
        Db.assertSqlState("22023", () -> Pq.sendIdem(writer, q, "t", "y", "order-43", "2 hours"));
        assertFalse(Pq.sendIdem(writer, q, "t", "y", "order-43", "1 hour").deduped());
        Db.assertSqlState("22023", () -> Db.exec(admin, "select pgque.set_queue_config(?, 'idem_max_ttl', 'infinity')", q));
        Db.exec(admin, "select pgque.set_queue_config(?, 'idem_max_ttl', null)", q);
        assertEquals("30 days", Db.one(superuser, String.class,
                "select queue_idem_max_ttl::text from pgque.queue where queue_name = ?", q));
    }

    @Test
    void theKeySpaceIsSharedAndTheAdminListsAndReleasesClaims() throws SQLException {
        String q = "ib_shared";
        Pq.createQueue(superuser, q);
        Pq.Idem first = Pq.sendIdem(writer, q, "t", "by writer 1", "order-42", "1 day");
        Pq.Idem second = Pq.sendIdem(otherWriter, q, "t", "by writer 2", "order-42", "1 day");
        assertTrue(second.deduped(), "another writer's send of the key is a duplicate of the first");
        assertEquals(first.eventId(), second.eventId());
        Pq.sendIdem(writer, q, "t", "z", "invoice-7", "1 hour");

        // Writers and readers may neither look nor release.
        Db.assertSqlState("42501", () -> Db.rows(writer, "select * from pgque.list_idem_keys(?)", q));
        Db.assertSqlState("42501", () -> Db.exec(otherWriter, "select pgque.release_idem_key(?, 'order-42')", q));

        List<Map<String, Object>> claims = Db.rows(admin, "select * from pgque.list_idem_keys(?)", q);
        assertEquals(List.of("order-42", "invoice-7"), claims.stream().map(r -> r.get("idem_key")).toList());
        assertEquals(first.eventId(), claims.get(0).get("event_id"));
        assertEquals(List.of("order-42"), Db.rows(admin, "select idem_key from pgque.list_idem_keys(?, 'order-')", q)
                .stream().map(r -> r.get("idem_key")).toList());

        assertEquals(Boolean.TRUE, Db.one(admin, Boolean.class, "select pgque.release_idem_key(?, 'order-42')", q));
        assertEquals(Boolean.FALSE, Db.one(admin, Boolean.class, "select pgque.release_idem_key(?, 'order-42')", q),
                "released already");
        Pq.Idem again = Pq.sendIdem(otherWriter, q, "t", "by writer 2, again", "order-42", "1 day");
        assertFalse(again.deduped(), "a released key writes a new event");
        assertNotEquals(first.eventId(), again.eventId());
    }

    @Test
    void aClaimNotYetCommittedIsNotReleasedUnderItsProducer() throws Exception {
        // Two sessions: the producer's claim is open; the admin's release does not see it and
        // releases nothing, and the claim stands once the producer commits.
        String q = "ib_race";
        Pq.createQueue(superuser, q);
        try (Connection producer = writer.getConnection()) {
            producer.setAutoCommit(false);
            Pq.sendIdem(producer, q, "t", "x", "k", "1 hour", null);
            assertEquals(Boolean.FALSE, Db.one(admin, Boolean.class, "select pgque.release_idem_key(?, 'k')", q));
            producer.commit();
        }
        assertTrue(Pq.sendIdem(otherWriter, q, "t", "y", "k", "1 hour").deduped(), "the committed claim stands");
        assertEquals(Boolean.TRUE, Db.one(admin, Boolean.class, "select pgque.release_idem_key(?, 'k')", q));
        assertFalse(Pq.sendIdem(otherWriter, q, "t", "z", "k", "1 hour").deduped());
    }
}

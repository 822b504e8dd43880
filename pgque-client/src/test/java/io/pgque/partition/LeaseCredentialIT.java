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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 47 item 4: a lease holder's name is not a credential. A second reader that reads
 * everything the engine shows it (partition_slot_status, the text of a fencing error) cannot
 * receive the holder's batch or ack events the holder never saw: a worker id of the form
 * {@code <label>|<secret>} shows only its label, and a lease is held only by the login that
 * claimed it. Each case runs the holder and the intruder as two real sessions.
 */
class LeaseCredentialIT {

    private static final String READER = "lc_reader";
    private static final String OTHER_READER = "lc_reader2";
    private static final String SECRET = "3f7d0c9a51e24b68a0c1d2e3f4a5b6c7";
    private static DataSource superuser;
    private static DataSource reader;
    private static DataSource otherReader;

    @BeforeAll
    static void install() {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("lease_credential").installEngine();
        superuser = db.superuser();
        for (String login : List.of(READER, OTHER_READER)) {
            Db.exec(superuser, "do $$ begin if not exists (select 1 from pg_roles where rolname = '" + login + "') then"
                    + " create role " + login + " login; end if; end $$");
            Db.exec(superuser, "grant pgque_reader to " + login);
        }
        reader = db.as(READER);
        otherReader = db.as(OTHER_READER);
    }

    /** A queue with one partitioned consumer of one slot and three events waiting in it. */
    private static List<Long> queueWithEvents(String q) {
        Pq.createQueue(superuser, q);
        Pq.subscribePartitioned(superuser, q, "c", 1);
        List<Long> ids = new ArrayList<>();
        for (String key : List.of("a", "b", "c")) {
            ids.add(Pq.send(superuser, q, "t", "event " + key, key));
        }
        Pq.tick(superuser, q);
        return ids;
    }

    @Test
    void aSecondReaderOfTheSameLoginCannotActAsAHolderWithASecret() throws SQLException {
        String q = "lc_secret";
        List<Long> ids = queueWithEvents(q);
        String holder = "task-0|" + SECRET;
        try (Connection mine = reader.getConnection(); Connection intruder = reader.getConnection()) {
            assertEquals(1L, Pq.claim(mine, q, "c", 0, holder, "1 minute"));

            // Everything the engine shows the intruder names the label, never the secret.
            Map<String, Object> status = Db.rows(intruder,
                    "select lease_owner from pgque.partition_slot_status where queue_name = ?", q).get(0);
            String shown = (String) status.get("lease_owner");
            assertEquals("task-0", shown);
            SQLException fenced = Db.assertSqlState("PQ004", () -> Pq.receive(intruder, q, "c", 0, 1, shown, 10));
            assertFalse(fenced.getMessage().contains(SECRET), fenced.getMessage());
            assertTrue(fenced.getMessage().contains("held by worker task-0"), fenced.getMessage());

            // Acting with what it was shown gets it nothing.
            Db.assertSqlState("PQ004", () -> Pq.ack(intruder, q, "c", 0, 1, shown));
            assertNull(Pq.claim(intruder, q, "c", 0, shown, "1 minute"), "a live lease is not taken over");
            assertFalse(Pq.release(intruder, q, "c", 0, shown));
            assertEquals(1L, Db.one(intruder, Long.class,
                    "select epoch from pgque.partition_slot_status where queue_name = ?", q));

            // The holder's batch is whole and its own.
            assertEquals(ids, Pq.receive(mine, q, "c", 0, 1, holder, 10).stream().map(Pq.Msg::msgId).toList());
            assertEquals(1, Pq.ack(mine, q, "c", 0, 1, holder));
            assertTrue(Pq.release(mine, q, "c", 0, holder));
        }
    }

    @Test
    void aReaderOfAnotherLoginCannotActAsAHolderOfAPlainName() throws SQLException {
        // PgQue's own calls name a worker without a secret: the name is then shown, and the
        // lease is bound to the login that claimed it.
        String q = "lc_plain";
        List<Long> ids = queueWithEvents(q);
        try (Connection mine = reader.getConnection(); Connection intruder = otherReader.getConnection()) {
            assertEquals(1L, Pq.claim(mine, q, "c", 0, "reader-worker", "1 minute"));
            assertEquals("reader-worker", Db.one(intruder, String.class,
                    "select lease_owner from pgque.partition_slot_status where queue_name = ?", q));
            Db.assertSqlState("PQ004", () -> Pq.receive(intruder, q, "c", 0, 1, "reader-worker", 10));
            Db.assertSqlState("PQ004", () -> Pq.ack(intruder, q, "c", 0, 1, "reader-worker"));
            assertNull(Pq.claim(intruder, q, "c", 0, "reader-worker", "1 minute"));
            assertFalse(Pq.release(intruder, q, "c", 0, "reader-worker"));
            assertEquals(ids, Pq.receive(mine, q, "c", 0, 1, "reader-worker", 10).stream().map(Pq.Msg::msgId).toList());
            assertEquals(1, Pq.ack(mine, q, "c", 0, 1, "reader-worker"));
        }
    }

    @Test
    void theHolderRenewsItsOwnLeaseAndAnExpiredOneIsTakenOverWithANewEpoch() throws SQLException {
        String q = "lc_renew";
        queueWithEvents(q);
        try (Connection mine = reader.getConnection(); Connection next = otherReader.getConnection()) {
            assertEquals(1L, Pq.claim(mine, q, "c", 0, "w|" + SECRET, "1 second"));
            assertEquals(1L, Pq.claim(mine, q, "c", 0, "w|" + SECRET, "1 second"), "a renewal keeps the epoch");
            assertNull(Pq.claim(next, q, "c", 0, "w2|x", "1 minute"), "live");
            Db.await(java.time.Duration.ofSeconds(10), java.time.Duration.ofMillis(50), "the lease expires",
                    () -> Db.one(superuser, Boolean.class, "select lease_until <= clock_timestamp() from pgque.partition_slot ps"
                            + " join pgque.queue qq on qq.queue_id = ps.queue_id where qq.queue_name = ?", q));
            assertEquals(2L, Pq.claim(next, q, "c", 0, "w2|x", "1 minute"), "taken over by another login");
            Db.assertSqlState("PQ004", () -> Pq.receive(mine, q, "c", 0, 1, "w|" + SECRET, 10));
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * ENGINE.md 6.3: the two-session slot-claim script, as ordered steps over real, separate backends.
 * Session 1 disconnects while holding its lease; the lease must outlive the backend (it is a row,
 * not a session lock) and become claimable only once its TTL has passed.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoSessionSlotClaimIT {

    private static final String Q = "two_session_q";
    private static final String C = "w";

    private DataSource ds;
    private Long session1Epoch;
    private int session1Pid;
    private Connection session2;

    @BeforeAll
    void install() {
        ds = EmbeddedPg.newDatabase("two_session").installEngine().superuser();
    }

    @AfterAll
    void closeSession2() throws SQLException {
        if (session2 != null) {
            session2.close();
        }
    }

    private Connection session2() throws SQLException {
        if (session2 == null) {
            session2 = ds.getConnection();
            session2.setAutoCommit(true);
        }
        return session2;
    }

    @Test
    @Order(1)
    void step1_setup_queue_and_slots_0_and_1_of_n2() {
        Pq.createQueue(ds, Q);
        Pq.subscribeSlot(ds, Q, C, 0, 2);
        Pq.subscribeSlot(ds, Q, C, 1, 2);
        assertEquals(2, Pq.status(ds, Q, C).size());
    }

    @Test
    @Order(2)
    void step2_session1_claims_slot0_ttl3s_and_exits_without_release() throws SQLException {
        try (Connection s1 = ds.getConnection()) {
            s1.setAutoCommit(true);
            session1Pid = Db.one(s1, Integer.class, "select pg_backend_pid()");
            session1Epoch = Pq.claim(s1, Q, C, 0, "w1", "3 seconds");
            assertNotNull(session1Epoch, "session 1 must get a numeric epoch");
        }
        Db.await(Duration.ofSeconds(10), Duration.ofMillis(50), "backend of session 1 to exit", () ->
                Db.count(ds, "select count(*) from pg_stat_activity where pid = ?", session1Pid) == 0);
    }

    @Test
    @Order(3)
    void step3_session2_cannot_claim_slot0_lease_outlives_dead_backend() throws SQLException {
        requireStep2();
        assertNull(Pq.claim(session2(), Q, C, 0, "w2", null));
    }

    @Test
    @Order(4)
    void step4_session2_claims_free_slot1() throws SQLException {
        assertNotNull(Pq.claim(session2(), Q, C, 1, "w2", null));
    }

    @Test
    @Order(5)
    void step5_session2_view_shows_slot0_w1_and_slot1_w2() throws SQLException {
        requireStep2();
        Map<Integer, Object> owners = new java.util.HashMap<>();
        for (Map<String, Object> r : Db.rows(session2(),
                "select slot, lease_owner from pgque.partition_slot_status where queue_name = ? and consumer = ?", Q, C)) {
            owners.put(((Number) r.get("slot")).intValue(), r.get("lease_owner"));
        }
        assertEquals("w1", owners.get(0), "view: " + owners);
        assertEquals("w2", owners.get(1), "view: " + owners);
    }

    @Test
    @Order(6)
    void step6_session2_releases_slot1() throws SQLException {
        assertEquals(Boolean.TRUE, Pq.release(session2(), Q, C, 1, "w2"));
    }

    @Test
    @Order(7)
    void step7_session3_polls_and_takes_slot0_after_ttl_with_larger_epoch() throws SQLException {
        requireStep2();
        try (Connection s3 = ds.getConnection()) {
            s3.setAutoCommit(true);
            Long epoch = null;
            for (int attempt = 0; attempt < 30 && epoch == null; attempt++) {
                epoch = Pq.claim(s3, Q, C, 0, "w3", null);
                if (epoch == null) {
                    sleepPollInterval();
                }
            }
            assertNotNull(epoch, "session 3 must win slot 0 once the 3 s TTL has expired (30 x 0.3 s)");
            assertTrue(epoch > session1Epoch, "epoch " + epoch + " must exceed session 1's " + session1Epoch);
            assertEquals(Boolean.TRUE, Pq.release(s3, Q, C, 0, "w3"));
        }
    }

    @Test
    @Order(8)
    void step8_cleanup_unsubscribe_both_slots_and_force_drop() {
        Db.exec(ds, "select pgque.unsubscribe_slot(?::text, ?::text, ?::int)", Q, C, 0);
        Db.exec(ds, "select pgque.unsubscribe_slot(?::text, ?::text, ?::int)", Q, C, 1);
        assertEquals(1, Db.one(ds, Integer.class, "select pgque.drop_queue(?::text, true)", Q));
        assertEquals(0, Db.count(ds, "select count(*) from pgque.queue where queue_name = ?", Q));
    }

    private void requireStep2() {
        if (session1Epoch == null) {
            fail("step 2 did not run or failed; this step depends on it");
        }
    }

    private static void sleepPollInterval() {
        try {
            Thread.sleep(300);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

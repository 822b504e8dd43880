/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ENGINE.md 6.3: the two-session slot-claim script over real, separate backends. Session 1
 * disconnects while holding its lease; the lease must outlive the backend (it is a row, not a
 * session lock) and become claimable only once its TTL has passed.
 *
 * <p>The script runs as one test: its steps share sessions and a lease, so a failed step must
 * stop the script where it failed instead of leaving later steps to fail for a borrowed reason.
 * It is also timing-free. The spec's version gives session 1 a 3 s TTL and needs steps 3 to 5 to
 * finish inside it, which a loaded machine does not promise. Here session 1 takes a lease no
 * machine outruns (one hour); when the script reaches the expiry step, worker {@code w1} comes
 * back on a fresh backend and renews its own lease down to the shortest TTL the engine accepts,
 * which is what a worker does on its last renewal before it dies. Session 3 then waits on the
 * condition (the lease has expired by the database's clock) with a generous deadline, and its
 * claim must succeed with a larger epoch.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TwoSessionSlotClaimIT {

    private static final String Q = "two_session_q";
    private static final String C = "w";
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private DataSource ds;

    @BeforeAll
    void install() {
        ds = EmbeddedPg.newDatabase("two_session").installEngine().superuser();
    }

    @Test
    void two_session_slot_claim_script() throws SQLException {
        // Step 1: a queue and slots 0 and 1 of N=2.
        Pq.createQueue(ds, Q);
        Pq.subscribeSlot(ds, Q, C, 0, 2);
        Pq.subscribeSlot(ds, Q, C, 1, 2);
        assertEquals(2, Pq.status(ds, Q, C).size(), "step 1: two slots subscribed");

        // Step 2: session 1 claims slot 0 as w1 and its backend exits without releasing.
        long session1Epoch;
        int session1Pid;
        try (Connection s1 = ds.getConnection()) {
            s1.setAutoCommit(true);
            session1Pid = Db.one(s1, Integer.class, "select pg_backend_pid()");
            Long epoch = Pq.claim(s1, Q, C, 0, "w1", "1 hour");
            assertNotNull(epoch, "step 2: session 1 must get a numeric epoch");
            session1Epoch = epoch;
        }
        Db.await(DEADLINE, Duration.ofMillis(50), "backend of session 1 to exit", () ->
                Db.count(ds, "select count(*) from pg_stat_activity where pid = ?", session1Pid) == 0);

        try (Connection s2 = ds.getConnection()) {
            s2.setAutoCommit(true);
            // Step 3: the lease outlived the dead backend.
            assertNull(Pq.claim(s2, Q, C, 0, "w2", null), "step 3: slot 0 must still be leased to w1");
            // Step 4: the free slot is claimable.
            assertNotNull(Pq.claim(s2, Q, C, 1, "w2", null), "step 4: slot 1 is free");
            // Step 5: the view shows both live leases.
            Map<Integer, Object> owners = new HashMap<>();
            for (Map<String, Object> r : Db.rows(s2,
                    "select slot, lease_owner from pgque.partition_slot_status where queue_name = ? and consumer = ?",
                    Q, C)) {
                owners.put(((Number) r.get("slot")).intValue(), r.get("lease_owner"));
            }
            assertEquals("w1", owners.get(0), "step 5: view " + owners);
            assertEquals("w2", owners.get(1), "step 5: view " + owners);
            // Step 6: session 2 gives slot 1 back.
            assertEquals(Boolean.TRUE, Pq.release(s2, Q, C, 1, "w2"), "step 6: release of slot 1");
        }

        // Step 7: w1's last renewal leaves the shortest TTL; once the database's clock has passed
        // it, session 3 takes slot 0 with a larger epoch.
        assertEquals(session1Epoch, Pq.claim(ds, Q, C, 0, "w1", "1 second"),
                "step 7: w1 renewing its own lease keeps the epoch");
        try (Connection s3 = ds.getConnection()) {
            s3.setAutoCommit(true);
            Db.await(DEADLINE, Duration.ofMillis(100), "w1's lease on slot 0 to expire", () ->
                    Db.count(ds, "select count(*) from pgque.partition_slot_status where queue_name = ?"
                            + " and consumer = ? and slot = 0 and lease_until <= clock_timestamp()", Q, C) == 1);
            Long epoch = Pq.claim(s3, Q, C, 0, "w3", null);
            assertNotNull(epoch, "step 7: session 3 must win slot 0 once the TTL has expired");
            assertTrue(epoch > session1Epoch, "step 7: epoch " + epoch + " must exceed session 1's " + session1Epoch);
            assertEquals(Boolean.TRUE, Pq.release(s3, Q, C, 0, "w3"), "step 7: session 3 releases");
        }

        // Step 8: cleanup unsubscribes both slots and force-drops the queue.
        Db.exec(ds, "select pgque.unsubscribe_slot(?::text, ?::text, ?::int)", Q, C, 0);
        Db.exec(ds, "select pgque.unsubscribe_slot(?::text, ?::text, ?::int)", Q, C, 1);
        assertEquals(1, Db.one(ds, Integer.class, "select pgque.drop_queue(?::text, true)", Q));
        assertEquals(0, Db.count(ds, "select count(*) from pgque.queue where queue_name = ?", Q));
    }
}

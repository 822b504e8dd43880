/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.testing.EmbeddedPg;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Maintenance and health calls of {@link Operations} the connectors' ticker duty relies on. */
class OperationsIT {

    private static final String READER = "client_operations_reader";

    private static EmbeddedPg.TestDatabase db;
    private static PgQue pq;

    @BeforeAll
    static void setUp() {
        db = ClientTesting.newDatabase("client_operations").installEngine();
        pq = PgQue.using(db.superuser());
        ClientTesting.loginRole(db.superuser(), READER, "pgque_reader");
    }

    @Test
    void rotationStepTwoStampsTheQueueThatMaintSwitchedOnlyOnce() {
        pq.queues().create("rotating");
        pq.queues().setConfig("rotating", QueueParam.ROTATION_PERIOD, "1 second");
        int tableBefore = currentTable("rotating");
        // maint() switches the table once the period has passed; each call is its own transaction.
        ClientTesting.await("maint() to rotate 'rotating'",
                () -> pq.operations().maint() > 0 ? Optional.of(true) : Optional.empty());
        assertTrue(currentTable("rotating") != tableBefore, "maint() switched the event table");
        assertTrue(stepTwoPending("rotating"), "step 2 is still to run");

        assertEquals(1, pq.operations().maintRotateTablesStep2());
        assertTrue(!stepTwoPending("rotating"), "step 2 stamped the queue");
        assertEquals(0, pq.operations().maintRotateTablesStep2(), "nothing left to stamp");
    }

    @Test
    void statusReportsTheEngineAndItsScheduler() {
        List<ComponentStatus> rows = pq.operations().status();
        assertEquals("postgresql", rows.get(0).component());
        assertEquals("pgque", rows.get(1).component());
        assertEquals("info", rows.get(1).status());
        assertEquals(pq.operations().version(), rows.get(1).detail());
        ComponentStatus scheduler = rows.stream().filter(r -> r.component().equals("scheduler")).findFirst()
                .orElseThrow(() -> new AssertionError("no scheduler row in " + rows));
        assertTrue(!scheduler.status().equals("pg_cron"), "the embedded server has no pg_cron: " + scheduler);

        assertThrows(PermissionDeniedException.class, () -> PgQue.using(db.as(READER)).operations().status());
    }

    private static int currentTable(String queue) {
        return (int) ClientTesting.queryLong(db.superuser(),
                "select queue_cur_table from pgque.queue where queue_name = ?", queue);
    }

    private static boolean stepTwoPending(String queue) {
        return ClientTesting.queryLong(db.superuser(),
                "select count(*) from pgque.queue where queue_name = ? and queue_switch_step2 is null", queue) == 1;
    }
}

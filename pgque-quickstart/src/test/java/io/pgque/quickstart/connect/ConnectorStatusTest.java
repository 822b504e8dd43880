/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConnectorStatusTest {

    @Test
    void runningNeedsTheConnectorAndEveryExpectedTask() {
        ConnectorStatus.Task up0 = new ConnectorStatus.Task(0, "RUNNING", null);
        ConnectorStatus.Task up1 = new ConnectorStatus.Task(1, "RUNNING", null);
        assertTrue(new ConnectorStatus("c", "RUNNING", null, List.of(up0, up1)).running(2));
        assertFalse(new ConnectorStatus("c", "RUNNING", null, List.of(up0)).running(2), "a task not yet assigned");
        assertFalse(new ConnectorStatus("c", "UNASSIGNED", null, List.of(up0, up1)).running(2));
        assertFalse(new ConnectorStatus("c", "RUNNING", null,
                List.of(up0, new ConnectorStatus.Task(1, "UNASSIGNED", null))).running(2));
    }

    @Test
    void aFailedTaskIsReportedWithItsDeepestCause() {
        String trace = "org.apache.kafka.connect.errors.ConnectException: cannot start\n"
                + "\tat x.y(Z.java:1)\n"
                + "Caused by: java.sql.SQLException: wrapper\n"
                + "\tat a.b(C.java:2)\n"
                + "Caused by: java.net.ConnectException: Connection refused\n";
        ConnectorStatus s = new ConnectorStatus("pgque-sink", "RUNNING", null,
                List.of(new ConnectorStatus.Task(0, "RUNNING", null), new ConnectorStatus.Task(1, "FAILED", trace)));
        assertEquals(Optional.of("task pgque-sink-1 FAILED: org.apache.kafka.connect.errors.ConnectException: "
                + "cannot start / Caused by: java.net.ConnectException: Connection refused"), s.failure());
    }

    @Test
    void aHealthyConnectorHasNoFailure() {
        assertEquals(Optional.empty(), new ConnectorStatus("c", "RUNNING", null, List.of()).failure());
        assertEquals("(no trace)", ConnectorStatus.headline(null));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.health;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The outage arithmetic, on a clock the test moves; pools reporting for real in LoginFailuresIT. */
class DatabaseHealthTest {

    private final AtomicLong now = new AtomicLong(1_000);

    private DatabaseHealth health(long maxOutageMs) {
        ConnectionSettings settings = ConnectionSettings.from(new AbstractConfig(ConnectionConfigDef.addTo(new ConfigDef()),
                Map.of(ConnectionConfigDef.URL, "jdbc:postgresql://db.example/app",
                        ConnectionConfigDef.MAX_OUTAGE_MS, Long.toString(maxOutageMs)), false));
        return new DatabaseHealth(settings, now::get);
    }

    @Test
    void anOutageRunsFromTheFirstFailureAfterASuccessToTheNextSuccess() {
        DatabaseHealth health = health(0);
        assertTrue(health.connected(), "nothing seen yet");
        assertEquals(-1, health.lastSuccessAgeMs());
        health.succeeded();
        now.addAndGet(500);
        assertEquals(500, health.lastSuccessAgeMs());
        health.failed(new SQLException("gone", "08006"));
        now.addAndGet(300);
        health.failed(new SQLException("still gone", "08006"));
        assertFalse(health.connected());
        assertEquals(300, health.outageMs(), "counted from the first failure, not the last");
        health.succeeded();
        assertTrue(health.connected());
        assertEquals(0, health.outageMs());
    }

    @Test
    void theTaskFailsWithTheLastErrorOnceTheOutageOutlastsTheBound() {
        DatabaseHealth health = health(1_000);
        health.succeeded();
        now.addAndGet(60_000); // an idle task: a long quiet time is no outage
        assertDoesNotThrow(health::checkOutage);
        SQLException last = new SQLException("password authentication failed for user \"app\"", "28P01");
        health.failed(new SQLException("Connection refused", "08001"));
        now.addAndGet(1_000);
        assertDoesNotThrow(health::checkOutage, "not longer than the bound yet");
        health.failed(last);
        now.addAndGet(1);
        ConnectException failed = assertThrows(ConnectException.class, health::checkOutage);
        assertSame(last, failed.getCause());
        assertTrue(failed.getMessage().contains("connection.max.outage.ms=1000")
                && failed.getMessage().contains("connection.password"), failed.getMessage());
    }

    @Test
    void withoutABoundTheTaskWaitsForEver() {
        DatabaseHealth health = health(0);
        health.failed(new SQLException("gone", "08006"));
        now.addAndGet(7L * 24 * 3_600_000L);
        assertDoesNotThrow(health::checkOutage);
    }
}

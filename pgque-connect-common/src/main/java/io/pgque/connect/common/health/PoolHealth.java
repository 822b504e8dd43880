/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.health;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.SQLExceptionOverride;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.util.DriverDataSource;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.TimeUnit;

/**
 * Makes a pool report to a {@link DatabaseHealth}: its logins (with their precise errors), every
 * connection it hands out, every wait for a connection that timed out, and every error on a
 * connection in use that means the connection broke (SQLSTATE class 08, or the server ending
 * the session: 57P01 to 57P03). The task's own code
 * needs no change to be watched.
 */
public final class PoolHealth {

    /** SQLSTATE class connection_exception. */
    private static final String BROKEN_CONNECTION = "08";
    /** admin_shutdown, crash_shutdown, cannot_connect_now: the server ended the session. */
    private static final String SESSION_ENDED = "57P0";

    private PoolHealth() {
    }

    /** Sets up {@code config} (already holding the URL, driver, user and properties) to report to {@code health}. */
    public static void observe(HikariConfig config, DatabaseHealth health) {
        DriverDataSource driver = new DriverDataSource(config.getJdbcUrl(), config.getDriverClassName(),
                config.getDataSourceProperties(), config.getUsername(), config.getPassword());
        config.setDataSource(new ObservedDataSource(driver, health));
        long timeoutMs = config.getConnectionTimeout();
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        config.setMetricsTrackerFactory((poolName, stats) -> new IMetricsTracker() {
            // The pool reports a wait that timed out here too (just before recordConnectionTimeout),
            // with the whole timeout as its length: only a shorter wait handed a connection out.
            @Override
            public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
                if (elapsedAcquiredNanos < timeoutNanos) {
                    health.succeeded();
                }
            }

            @Override
            public void recordConnectionTimeout() {
                health.timedOut(new SQLTransientConnectionException("pool " + poolName + " got no connection within "
                        + timeoutMs + " ms"));
            }
        });
        config.setExceptionOverride(new SQLExceptionOverride() {
            @java.lang.Override
            public SQLExceptionOverride.Override adjudicate(SQLException e) {
                String state = e.getSQLState();
                if (state != null && (state.startsWith(BROKEN_CONNECTION) || state.startsWith(SESSION_ENDED))) {
                    health.failed(e);
                }
                return SQLExceptionOverride.Override.CONTINUE_EVICT;
            }
        });
    }
}

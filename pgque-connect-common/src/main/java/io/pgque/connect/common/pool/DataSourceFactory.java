/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.pool;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pgque.connect.common.config.ConnectionSettings;
import io.pgque.connect.common.health.DatabaseHealth;
import io.pgque.connect.common.health.PoolHealth;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/** Builds the HikariCP pool a connector or task talks to PostgreSQL through. */
public final class DataSourceFactory {

    private static final Logger log = LoggerFactory.getLogger(DataSourceFactory.class);

    /** PostgreSQL cuts application_name at 63 bytes; keep the start, which says who we are. */
    private static final int APPLICATION_NAME_MAX = 63;

    private DataSourceFactory() {
    }

    /**
     * A pool named {@code poolName}, e.g. "pgque-sink-orders-0". The name also becomes the
     * sessions' application_name, so a DBA can tell from pg_stat_activity which task a session
     * belongs to. The caller closes the pool.
     */
    public static HikariDataSource create(ConnectionSettings settings, String poolName) {
        return create(settings, poolName, null);
    }

    /** As {@link #create(ConnectionSettings, String)}, reporting to {@code health} (when not null) what the pool sees. */
    public static HikariDataSource create(ConnectionSettings settings, String poolName, DatabaseHealth health) {
        HikariConfig config = configure(settings, poolName);
        if (health != null) {
            PoolHealth.observe(config, health);
        }
        log.info("Opening connection pool {} to {} as user '{}' (at most {} connections)",
                poolName, settings.url(), settings.user(), settings.poolSize());
        return new HikariDataSource(config);
    }

    /**
     * A pool of at most {@code maxConnections} that keeps none open while unused, for connections
     * held for a while now and then (a source task's cursors over large batches), whatever
     * {@code connection.pool.size} says.
     */
    public static HikariDataSource createOnDemand(ConnectionSettings settings, String poolName, int maxConnections) {
        return createOnDemand(settings, poolName, maxConnections, null);
    }

    /** As {@link #createOnDemand(ConnectionSettings, String, int)}, reporting to {@code health} (when not null). */
    public static HikariDataSource createOnDemand(ConnectionSettings settings, String poolName, int maxConnections,
                                                  DatabaseHealth health) {
        HikariConfig config = configure(settings, poolName);
        if (health != null) {
            PoolHealth.observe(config, health);
        }
        config.setMaximumPoolSize(maxConnections);
        config.setMinimumIdle(0);
        log.info("Opening connection pool {} to {} as user '{}' (at most {} connections, none kept idle)",
                poolName, settings.url(), settings.user(), maxConnections);
        return new HikariDataSource(config);
    }

    /** The pool configuration; separate from {@link #create} so it can be checked without a database. */
    static HikariConfig configure(ConnectionSettings settings, String poolName) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName);
        config.setJdbcUrl(settings.url());
        // Named explicitly: inside Connect's plugin class loader, java.sql.DriverManager may not
        // see a driver that only the plugin's own jars contain.
        config.setDriverClassName("org.postgresql.Driver");
        if (!settings.user().isEmpty()) {
            config.setUsername(settings.user());
        }
        if (settings.password() != null) {
            config.setPassword(settings.password().value());
        }
        config.setMaximumPoolSize(settings.poolSize());
        // Tasks are many across a cluster; one warm connection each is enough between bursts.
        config.setMinimumIdle(1);
        config.setConnectionTimeout(settings.timeoutMs());
        // Building the pool must not fail or block when the database is down: retries and their
        // backoff are the caller's (connection.attempts), so the outage surfaces as a retriable
        // error on the first getConnection instead of as a failed task start.
        config.setInitializationFailTimeout(-1);

        sessionTimeouts(settings).ifPresent(config::setConnectionInitSql);

        Properties driver = settings.tlsDriverProperties();
        driver.setProperty("ApplicationName", truncate(poolName, APPLICATION_NAME_MAX));
        // Each of these bounds one kind of wait in the driver. It counts them in whole seconds:
        // rounded up, so that a short timeout never becomes "none" (0).
        driver.setProperty("connectTimeout", seconds(settings.timeoutMs()));
        // Per connection, not DriverManager's JVM-wide login timeout (which Hikari would set and
        // which every other pool in the worker shares).
        driver.setProperty("loginTimeout", seconds(settings.timeoutMs()));
        // The bound that holds when the server hangs. Waits for notifications (LISTEN) set their
        // own timeout per call, so a listening connection is not cut by it.
        driver.setProperty("socketTimeout", seconds(settings.socketTimeoutMs()));
        for (Map.Entry<Object, Object> entry : driver.entrySet()) {
            config.addDataSourceProperty((String) entry.getKey(), entry.getValue());
        }
        return config;
    }

    /**
     * The statement and lock timeouts, as one statement run on every new connection of the pool
     * (Hikari's connectionInitSql), or empty when both are left to the server. Run once per
     * connection rather than sent as the startup parameter {@code options=-c ...}: that one
     * would be silently replaced by an {@code options} parameter in the user's URL (the URL's
     * parameters win over the driver properties), and some connection poolers refuse it at
     * login. Session-level settings persist for the connection's life, as nothing here resets
     * the session. The values are numbers from the validated configuration, never user text.
     */
    static Optional<String> sessionTimeouts(ConnectionSettings settings) {
        List<String> sets = new ArrayList<>();
        if (settings.statementTimeoutMs() > 0) {
            sets.add("set_config('statement_timeout', '" + settings.statementTimeoutMs() + "ms', false)");
        }
        if (settings.lockTimeoutMs() > 0) {
            sets.add("set_config('lock_timeout', '" + settings.lockTimeoutMs() + "ms', false)");
        }
        return sets.isEmpty() ? Optional.empty() : Optional.of("select " + String.join(", ", sets));
    }

    private static String seconds(long millis) {
        return Long.toString((millis + 999) / 1000);
    }

    private static String truncate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import com.zaxxer.hikari.HikariDataSource;
import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import io.pgque.connect.common.pool.DataSourceFactory;
import io.pgque.testing.EmbeddedPg;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pool's connections carry the configured statement and lock timeouts, and what they end
 * is a failure the writer retries: a statement running too long (57014) and a lock waited for
 * too long (55P03), both against a real server.
 */
class SessionTimeoutsIT {

    private static EmbeddedPg.TestDatabase db;
    private static HikariDataSource pool;

    @BeforeAll
    static void openPool() {
        db = EmbeddedPg.newDatabase("session_timeouts");
        ConnectionSettings settings = ConnectionSettings.from(new AbstractConfig(
                ConnectionConfigDef.addTo(new ConfigDef()), Map.of(
                        "connection.url", db.jdbcUrl(),
                        "connection.statement.timeout.ms", "1500",
                        "connection.lock.timeout.ms", "700",
                        "connection.socket.timeout.ms", "10000"), false));
        pool = DataSourceFactory.create(settings, "session-timeouts-it");
    }

    @AfterAll
    static void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    @Test
    void everyPooledSessionCarriesTheTimeouts() throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            assertEquals("1500ms", text(s, "show statement_timeout"));
            assertEquals("700ms", text(s, "show lock_timeout"));
        }
    }

    @Test
    void aStatementOverTheTimeoutIsCancelledByTheServer_andRetried() throws SQLException {
        long start = System.nanoTime();
        SQLException e;
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            e = assertThrows(SQLException.class, () -> s.execute("select pg_sleep(30)"));
            // Cancelled by the server, not cut by the socket timeout: the session lives on.
            assertEquals("1", text(s, "select 1"));
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals("57014", e.getSQLState(), e.getMessage());
        assertTrue(ms < 10_000, "cancelled after " + ms + " ms, well before the 30 s sleep");
        assertEquals(FailureKind.TRANSIENT, FailureKind.of(e));
    }

    @Test
    void aLockWaitOverTheTimeoutFails_andIsRetried() throws SQLException {
        try (Connection holder = db.superuser().getConnection(); Statement hold = holder.createStatement()) {
            hold.execute("create table if not exists locked (id int)");
            holder.setAutoCommit(false);
            hold.execute("lock table locked in access exclusive mode");
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute("select count(*) from locked"));
                assertEquals("55P03", e.getSQLState(), e.getMessage());
                assertEquals(FailureKind.TRANSIENT, FailureKind.of(e));
            } finally {
                holder.rollback();
            }
        }
    }

    private static String text(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

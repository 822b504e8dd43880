/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The database's shared buffer accesses ({@code pg_stat_database.blks_hit + blks_read}): what a
 * drain read, whatever statement read it, as the difference of two readings.
 */
final class DatabaseBuffers {

    private DatabaseBuffers() {
    }

    /**
     * Shared buffers hit or read by this database so far. This connection's own counters are
     * flushed first, so a reading right after a drain includes the drain (the drain's sessions
     * flush theirs when they end).
     */
    static long now(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("select pg_stat_force_next_flush()");
            s.execute("select pg_stat_clear_snapshot()");
            try (ResultSet rs = s.executeQuery(
                    "select blks_hit + blks_read from pg_stat_database where datname = current_database()")) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}

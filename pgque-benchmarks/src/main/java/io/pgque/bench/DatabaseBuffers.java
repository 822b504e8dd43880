/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

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

    /**
     * The statements that read the most shared buffers, from pg_stat_statements (tracking nested
     * statements, so a function's buffers count for it and again for the statements it runs):
     * where a run's buffers went, by statement and per call.
     */
    static void printStatements(Connection c, int top) throws SQLException {
        System.out.println();
        System.out.println("pg_stat_statements, top " + top + " by shared buffers (nested statements included):");
        System.out.printf(Locale.ROOT, "| %10s | %12s | %10s | %12s | %10s | %s |%n", "calls", "buffers", "per call",
                "rows", "total ms", "query");
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select calls, shared_blks_hit + shared_blks_read, rows, total_exec_time,"
                     + " regexp_replace(query, '\\s+', ' ', 'g') from pg_stat_statements"
                     + " order by shared_blks_hit + shared_blks_read desc limit " + top)) {
            while (rs.next()) {
                String query = rs.getString(5);
                System.out.printf(Locale.ROOT, "| %10d | %12d | %10.1f | %12d | %10.0f | %s |%n", rs.getLong(1),
                        rs.getLong(2), rs.getLong(2) / (double) Math.max(1, rs.getLong(1)), rs.getLong(3),
                        rs.getDouble(4), query.length() > 200
                        ? query.substring(0, 90) + " ... " + query.substring(query.length() - 105) : query);
            }
        }
    }
}

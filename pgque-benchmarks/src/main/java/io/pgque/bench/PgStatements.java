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

/** Prints what the server spent its time on, from pg_stat_statements (loaded by {@link BenchServer}). */
final class PgStatements {

    private PgStatements() {
    }

    static void print(Connection c, int top) throws SQLException {
        System.out.println();
        System.out.println("pg_stat_statements, top " + top + " by total execution time (nested statements included):");
        System.out.printf(Locale.ROOT, "| %10s | %10s | %10s | %12s | %s |%n", "calls", "total ms", "mean ms", "rows", "query");
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select calls, total_exec_time, mean_exec_time, rows,"
                     + " regexp_replace(query, '\\s+', ' ', 'g') from pg_stat_statements"
                     + " order by total_exec_time desc limit " + top)) {
            while (rs.next()) {
                String query = rs.getString(5);
                System.out.printf(Locale.ROOT, "| %10d | %10.0f | %10.3f | %12d | %s |%n", rs.getLong(1), rs.getDouble(2),
                        rs.getDouble(3), rs.getLong(4), query.length() > 160 ? query.substring(0, 157) + "..." : query);
            }
        }
    }
}

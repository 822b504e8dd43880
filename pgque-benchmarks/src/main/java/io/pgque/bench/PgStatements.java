/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Formatter;
import java.util.Locale;

/** Prints what the server spent its time on, from pg_stat_statements (loaded by {@link BenchServer}). */
final class PgStatements {

    private PgStatements() {
    }

    static void print(Connection c, int top) throws SQLException {
        System.out.print(report(c, top));
    }

    /** The same as a text. */
    static String report(Connection c, int top) throws SQLException {
        StringBuilder text = new StringBuilder();
        Formatter out = new Formatter(text, Locale.ROOT);
        out.format("%npg_stat_statements, top %d by total execution time (nested statements included):%n", top);
        out.format("| %10s | %10s | %10s | %12s | %s |%n", "calls", "total ms", "mean ms", "rows", "query");
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select calls, total_exec_time, mean_exec_time, rows,"
                     + " regexp_replace(query, '\\s+', ' ', 'g') from pg_stat_statements"
                     + " order by total_exec_time desc limit " + top)) {
            while (rs.next()) {
                String query = rs.getString(5);
                out.format("| %10d | %10.0f | %10.3f | %12d | %s |%n", rs.getLong(1), rs.getDouble(2),
                        rs.getDouble(3), rs.getLong(4), query.length() > 160 ? query.substring(0, 157) + "..." : query);
            }
        }
        return text.toString();
    }
}

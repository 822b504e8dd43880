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
        return table(c, top, "total execution time", "total_exec_time",
                new String[] {"calls", "total ms", "mean ms", "rows"}, "%10d | %10.0f | %10.3f | %12d", 160,
                rs -> new Object[] {rs.getLong(1), rs.getDouble(2), rs.getDouble(3), rs.getLong(4)},
                "calls, total_exec_time, mean_exec_time, rows");
    }

    /**
     * The statements that read the most shared buffers (nested statements tracked, so a
     * function's buffers count for it and again for the statements it runs): where a run's
     * buffers went, by statement and per call.
     */
    static void printByBuffers(Connection c, int top) throws SQLException {
        System.out.print(table(c, top, "shared buffers", "shared_blks_hit + shared_blks_read",
                new String[] {"calls", "buffers", "per call", "rows", "total ms"}, "%10d | %12d | %10.1f | %12d | %10.0f",
                200, rs -> new Object[] {rs.getLong(1), rs.getLong(2), rs.getLong(2) / (double) Math.max(1, rs.getLong(1)),
                        rs.getLong(3), rs.getDouble(4)},
                "calls, shared_blks_hit + shared_blks_read, rows, total_exec_time"));
    }

    private interface Row {
        Object[] values(ResultSet rs) throws SQLException;
    }

    private static String table(Connection c, int top, String by, String orderBy, String[] headers, String format,
                                int width, Row row, String columns) throws SQLException {
        StringBuilder text = new StringBuilder();
        Formatter out = new Formatter(text, Locale.ROOT);
        out.format("%npg_stat_statements, top %d by %s (nested statements included):%n", top, by);
        out.format("| %s | query |%n", String.join(" | ", headers));
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select " + columns + ", regexp_replace(query, '\\s+', ' ', 'g')"
                     + " from pg_stat_statements order by " + orderBy + " desc limit " + top)) {
            int queryColumn = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                String query = rs.getString(queryColumn);
                out.format("| " + format + " | %s |%n", append(row.values(rs),
                        query.length() > width ? query.substring(0, width - 3) + "..." : query));
            }
        }
        return text.toString();
    }

    private static Object[] append(Object[] values, Object last) {
        Object[] all = java.util.Arrays.copyOf(values, values.length + 1);
        all[values.length] = last;
        return all;
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.testsupport;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Plain JDBC for tests that talk to the database directly: statements bound from plain values
 * (a {@code String[]} becomes a {@code text[]}), rows as maps, single values, and the checks that
 * a call fails with a server error. Runs on the caller's connection, in whatever transaction it
 * holds; failures of the checks are {@link AssertionError}s.
 */
public final class Jdbc {

    /** A call expected to fail. */
    @FunctionalInterface
    public interface Call {
        void run() throws Exception;
    }

    private Jdbc() {
    }

    /** {@code sql} with {@code args} bound as {@link #bind} binds them. */
    public static PreparedStatement prepare(Connection c, String sql, Object... args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        try {
            bind(c, ps, args);
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
        return ps;
    }

    /** Binds {@code args} in order: a {@code String[]} as a {@code text[]}, anything else as given. */
    public static void bind(Connection c, PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof String[] strings) {
                Array array = c.createArrayOf("text", strings);
                ps.setArray(i + 1, array);
            } else {
                ps.setObject(i + 1, a);
            }
        }
    }

    /** Runs a statement; any result is discarded. */
    public static void exec(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args)) {
            ps.execute();
        }
    }

    /** All rows as column-label to value maps, in column order. */
    public static List<Map<String, Object>> rows(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            List<Map<String, Object>> out = new ArrayList<>();
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    row.put(md.getColumnLabel(i), rs.getObject(i));
                }
                out.add(row);
            }
            return out;
        }
    }

    /** The first column of the single row the query returns (may be SQL NULL). */
    public static <T> T one(Connection c, Class<T> type, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new AssertionError("query returned no row: " + sql);
            }
            T value = type == Object.class ? type.cast(rs.getObject(1)) : rs.getObject(1, type);
            if (rs.next()) {
                throw new AssertionError("query returned more than one row: " + sql);
            }
            return value;
        }
    }

    /** The server's {@link SQLException} somewhere in {@code t}'s causes, or null. */
    public static SQLException sqlCause(Throwable t) {
        for (Throwable x = t; x != null; x = x.getCause()) {
            if (x instanceof SQLException s) {
                return s;
            }
        }
        return null;
    }

    /** Runs {@code call}, checks it fails with SQLSTATE {@code sqlState}, and returns the server's error. */
    public static SQLException expectSqlState(String sqlState, Call call) {
        return expectSqlState(sqlState, SQLException::getSQLState, call);
    }

    /**
     * As above, the error's code read by {@code codeOf} (an engine that raises its own codes
     * inside a generic SQLSTATE says where it puts them).
     */
    public static SQLException expectSqlState(String sqlState, Function<SQLException, String> codeOf, Call call) {
        SQLException e = expectSqlError(call);
        String code = codeOf.apply(e);
        if (!sqlState.equals(code)) {
            throw new AssertionError("expected SQLSTATE " + sqlState + " but got " + code
                    + "; the server said: " + e.getMessage(), e);
        }
        return e;
    }

    /** Runs {@code call}, checks it fails with a server error (any SQLSTATE), and returns it. */
    public static SQLException expectSqlError(Call call) {
        try {
            call.run();
        } catch (Throwable t) {
            SQLException e = sqlCause(t);
            if (e == null) {
                throw new AssertionError("expected a server error but got " + t, t);
            }
            return e;
        }
        throw new AssertionError("expected a server error but the call succeeded");
    }
}

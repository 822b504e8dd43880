/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import javax.sql.DataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Plain-JDBC helpers for the partition/idempotency tests. Every DataSource overload opens its own
 * connection in autocommit mode, so each call is its own committed transaction (the harness rule:
 * send, tick and receive never share a transaction). Connection overloads run inside whatever
 * transaction the caller holds on that session.
 */
final class Db {

    private Db() {
    }

    @FunctionalInterface
    interface SqlCall {
        void run() throws Exception;
    }

    @FunctionalInterface
    interface SqlFn<T> {
        T apply(Connection c) throws SQLException;
    }

    static <T> T with(DataSource ds, SqlFn<T> fn) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            return fn.apply(c);
        } catch (SQLException e) {
            throw new SqlError(e);
        }
    }

    /** Runs fn in one explicit transaction on a fresh connection and commits it. */
    static <T> T inTx(DataSource ds, SqlFn<T> fn) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                T r = fn.apply(c);
                c.commit();
                return r;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new SqlError(e);
        }
    }

    static void bind(Connection c, PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof String[] arr) {
                Array sqlArr = c.createArrayOf("text", arr);
                ps.setArray(i + 1, sqlArr);
            } else {
                ps.setObject(i + 1, a);
            }
        }
    }

    static void exec(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(c, ps, args);
            ps.execute();
        }
    }

    static void exec(DataSource ds, String sql, Object... args) {
        with(ds, c -> {
            exec(c, sql, args);
            return null;
        });
    }

    static List<Map<String, Object>> rows(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(c, ps, args);
            try (ResultSet rs = ps.executeQuery()) {
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
    }

    static List<Map<String, Object>> rows(DataSource ds, String sql, Object... args) {
        return with(ds, c -> rows(c, sql, args));
    }

    /** The first column of the single row the query returns (may be SQL NULL). */
    static <T> T one(Connection c, Class<T> type, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(c, ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    fail("query returned no row: " + sql);
                }
                T v = rs.getObject(1, type);
                if (rs.next()) {
                    fail("query returned more than one row: " + sql);
                }
                return v;
            }
        }
    }

    static <T> T one(DataSource ds, Class<T> type, String sql, Object... args) {
        return with(ds, c -> one(c, type, sql, args));
    }

    static long count(DataSource ds, String sql, Object... args) {
        Long n = one(ds, Long.class, sql, args);
        return n == null ? 0 : n;
    }

    /**
     * Asserts that the call fails with the given SQLSTATE and returns the exception. Unwraps
     * {@link SqlError} and other wrappers down to the server's {@link SQLException}.
     */
    static SQLException assertSqlState(String expected, SqlCall call) {
        try {
            call.run();
        } catch (Throwable t) {
            SQLException e = sqlException(t);
            if (e == null) {
                fail("expected SQLSTATE " + expected + " but got " + t, t);
            }
            // The engine's code: the SQLSTATE, or the code a P0001 error raised as PgQue does carries.
            assertEquals(expected, io.pgque.client.PgQueException.sqlStateOf(e),
                    () -> "wrong SQLSTATE; server said: " + e.getMessage());
            return e;
        }
        fail("expected SQLSTATE " + expected + " but the call succeeded");
        return null;
    }

    /** Asserts that the call fails with a server error (any SQLSTATE) and returns it. */
    static SQLException assertSqlError(SqlCall call) {
        try {
            call.run();
        } catch (Throwable t) {
            SQLException e = sqlException(t);
            if (e == null) {
                fail("expected a server error but got " + t, t);
            }
            return e;
        }
        fail("expected a server error but the call succeeded");
        return null;
    }

    static SQLException sqlException(Throwable t) {
        for (Throwable x = t; x != null; x = x.getCause()) {
            if (x instanceof SQLException s) {
                return s;
            }
        }
        return null;
    }

    /** The server's major version (e.g. 17). */
    static int serverMajor(DataSource ds) {
        return one(ds, Integer.class, "select current_setting('server_version_num')::int / 10000");
    }

    /** Polls until the condition holds; fails with the message once the deadline passes. */
    static void await(Duration timeout, Duration every, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + timeout + " waiting for: " + what);
            }
            try {
                Thread.sleep(every.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting for: " + what);
            }
        }
    }

    /** Unchecked carrier for SQLExceptions thrown inside helpers and lambdas. */
    static final class SqlError extends RuntimeException {
        SqlError(SQLException cause) {
            super(cause.getSQLState() + ": " + cause.getMessage(), cause);
        }

        SQLException sql() {
            return (SQLException) getCause();
        }
    }
}

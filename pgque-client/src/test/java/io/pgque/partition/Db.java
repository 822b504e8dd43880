/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.testsupport.Await;
import io.pgque.testsupport.Jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;


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
        Jdbc.bind(c, ps, args);
    }

    static void exec(Connection c, String sql, Object... args) throws SQLException {
        Jdbc.exec(c, sql, args);
    }

    static void exec(DataSource ds, String sql, Object... args) {
        with(ds, c -> {
            exec(c, sql, args);
            return null;
        });
    }

    static List<Map<String, Object>> rows(Connection c, String sql, Object... args) throws SQLException {
        return Jdbc.rows(c, sql, args);
    }

    static List<Map<String, Object>> rows(DataSource ds, String sql, Object... args) {
        return with(ds, c -> rows(c, sql, args));
    }

    /** The first column of the single row the query returns (may be SQL NULL). */
    static <T> T one(Connection c, Class<T> type, String sql, Object... args) throws SQLException {
        return Jdbc.one(c, type, sql, args);
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
        // The engine's code: the SQLSTATE, or the code a P0001 error raised as PgQue does carries.
        return Jdbc.expectSqlState(expected, io.pgque.client.PgQueException::sqlStateOf, call::run);
    }

    /** Asserts that the call fails with a server error (any SQLSTATE) and returns it. */
    static SQLException assertSqlError(SqlCall call) {
        return Jdbc.expectSqlError(call::run);
    }

    static SQLException sqlException(Throwable t) {
        return Jdbc.sqlCause(t);
    }

    /** The server's major version (e.g. 17). */
    static int serverMajor(DataSource ds) {
        return one(ds, Integer.class, "select current_setting('server_version_num')::int / 10000");
    }

    /** Polls until the condition holds; fails with the message once the deadline passes. */
    static void await(Duration timeout, Duration every, String what, BooleanSupplier condition) {
        Await.until(what, timeout, every, condition);
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

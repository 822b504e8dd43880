/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Where an operation gets its connection, and who owns the transaction. Every operation of the
 * client is written once against this interface; the two implementations decide whether each
 * call is its own transaction ({@link #ownTransactions}) or joins the caller's
 * ({@link #callerTransaction}).
 */
interface Connections {

    /**
     * Runs {@code work} and returns its result; a {@link SQLException} comes out as the matching
     * {@link PgQueException}, with {@code what} saying what was being done.
     */
    <T> T run(String what, SqlWork<T> work);

    /**
     * {@link #run} for work that is one statement: where the client owns the transaction, the
     * statement is its own (autocommit), one round trip where a transaction of its own takes two
     * (the statement, then the commit).
     */
    default <T> T runStatement(String what, SqlWork<T> work) {
        return run(what, work);
    }

    /** Each call takes a connection from the pool and runs in a transaction of its own. */
    static Connections ownTransactions(DataSource dataSource) {
        return new OwnTransactions(Objects.requireNonNull(dataSource, "dataSource"));
    }

    /**
     * Every call runs on {@code connection}, inside whatever transaction the caller has open;
     * nothing is committed, rolled back or closed by the client.
     */
    static Connections callerTransaction(Connection connection) {
        Objects.requireNonNull(connection, "connection");
        return new Connections() {
            @Override
            public <T> T run(String what, SqlWork<T> work) {
                try {
                    return work.run(connection);
                } catch (SQLException e) {
                    throw SqlErrors.map(what, e);
                }
            }
        };
    }

    /** Connection per call, committed when the work returns, rolled back when it throws. */
    final class OwnTransactions implements Connections {
        private final DataSource dataSource;

        private OwnTransactions(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        public <T> T run(String what, SqlWork<T> work) {
            try (Connection c = dataSource.getConnection()) {
                boolean wasAutoCommit = c.getAutoCommit();
                if (wasAutoCommit) {
                    c.setAutoCommit(false);
                }
                try {
                    return run(c, work);
                } finally {
                    if (wasAutoCommit) {
                        restoreAutoCommit(c);
                    }
                }
            } catch (SQLException e) {
                throw SqlErrors.map(what, e);
            }
        }

        @Override
        public <T> T runStatement(String what, SqlWork<T> work) {
            try (Connection c = dataSource.getConnection()) {
                if (!c.getAutoCommit()) {
                    return run(c, work);
                }
                return work.run(c);
            } catch (SQLException e) {
                throw SqlErrors.map(what, e);
            }
        }

        private static <T> T run(Connection c, SqlWork<T> work) throws SQLException {
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                rollbackQuietly(c, e);
                throw e;
            }
        }

        private static void rollbackQuietly(Connection c, Throwable failure) {
            try {
                c.rollback();
            } catch (SQLException rollbackFailure) {
                failure.addSuppressed(rollbackFailure);
            }
        }

        private static void restoreAutoCommit(Connection c) {
            try {
                c.setAutoCommit(true);
            } catch (SQLException ignored) {
                // the connection is broken; the pool will find out and discard it
            }
        }
    }
}

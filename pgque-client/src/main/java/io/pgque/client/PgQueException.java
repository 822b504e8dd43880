/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.SQLException;
import java.util.Set;

/**
 * Base of every error the client reports. Unchecked, because most callers cannot do anything
 * useful at the call site except let the failure travel up to a retry loop or a task supervisor.
 *
 * <p>When the failure came from the database, {@link #getCause()} is the original
 * {@link SQLException}, {@link #sqlState()} the engine's code for it (its SQLSTATE, or for an
 * error raised as PgQue raises it, SQLSTATE {@code P0001}, the code the engine carries with it),
 * and the message ends with the database's own message. Subclasses name the engine's documented
 * errors (codes {@code PQ0xx}) and the two PostgreSQL errors callers typically handle
 * ({@code 42501}, {@code 22023}).
 *
 * <p>If the operation ran on a caller-supplied connection, the caller's transaction is aborted
 * after any database error and must be rolled back before the connection is used again.
 */
public class PgQueException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** SQLSTATEs after which the same work may succeed if simply retried (on a new connection). */
    private static final Set<String> TRANSIENT_STATES = Set.of(
            "40001", // serialization_failure
            "40P01", // deadlock_detected
            "55P03", // lock_not_available: lock_timeout ran out waiting behind another session
            "57014", // query_canceled: statement_timeout (or a DBA's pg_cancel_backend)
            "57P01", // admin_shutdown
            "57P02", // crash_shutdown
            "57P03"  // cannot_connect_now
    );

    /** The database's SQLSTATE, or null. */
    private final String sqlState;

    /** An error detected by the client itself, not reported by the database. */
    public PgQueException(String message) {
        this(message, null, null);
    }

    /**
     * An error with the given message and cause; {@code sqlState} may be null when the error was
     * not reported by the database.
     */
    public PgQueException(String message, String sqlState, Throwable cause) {
        super(message, cause);
        this.sqlState = sqlState;
    }

    /**
     * The engine's code for the error, or null if the client detected the error itself: the
     * SQLSTATE the database reported, except for an error the engine raised as PgQue does
     * (SQLSTATE {@code P0001}), whose code travels with it (docs/sql-reference.md, "Errors"):
     * {@code PQ004} for a fenced slot lease, for example, whatever SQLSTATE carried it.
     */
    public String sqlState() {
        return sqlState;
    }

    /**
     * True when the failure says nothing about the request itself and the same work may succeed
     * when retried, preferably on a fresh connection: a lost connection (class {@code 08}), a
     * serialization failure or deadlock (the transaction was rolled back), a statement or lock
     * wait ended by statement_timeout or lock_timeout, or a server shutting down or starting up; also a {@link java.sql.SQLTransientException} or
     * {@link java.sql.SQLRecoverableException} without a SQLSTATE (a pool timeout). Retrying is the caller's decision; the client never retries by itself
     * because only the caller knows whether its own side effects were rolled back too.
     */
    public boolean isTransient() {
        if (isTransientState(sqlState)) {
            return true;
        }
        // A pool that cannot hand out a connection in time reports no SQLSTATE, only the JDBC
        // exception type that says "try again".
        for (Throwable t = getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLTransientException || t instanceof java.sql.SQLRecoverableException) {
                return true;
            }
        }
        return false;
    }

    /** Whether a SQLSTATE denotes a transient failure, in the sense of {@link #isTransient()}. */
    public static boolean isTransientState(String sqlState) {
        return sqlState != null && (sqlState.startsWith("08") || TRANSIENT_STATES.contains(sqlState));
    }

    /**
     * Whether any failure along {@code failure}'s cause chain is transient in the sense of
     * {@link #isTransient()}: the one answer both connectors give to "may retrying help?", for
     * the client's exceptions and for the driver's and the pool's alike (each connector puts
     * its own policy on top).
     */
    public static boolean isTransient(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PgQueException pq && pq.isTransient()) {
                return true;
            }
            if (t instanceof java.sql.SQLTransientException || t instanceof java.sql.SQLRecoverableException) {
                return true;
            }
            if (t instanceof SQLException sql && isTransientState(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The first engine code along {@code failure}'s cause chain (the client's, or the driver's
     * read as {@link #sqlState()} reads it), or null.
     */
    public static String sqlStateOf(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PgQueException pq && pq.sqlState() != null) {
                return pq.sqlState();
            }
            if (t instanceof SQLException sql && SqlErrors.code(sql) != null) {
                return SqlErrors.code(sql);
            }
        }
        return null;
    }
}

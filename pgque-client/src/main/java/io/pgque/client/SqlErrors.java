/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Turns a {@link SQLException} into the client's exception for the engine's error code: the one
 * place that reads that code (docs/sql-reference.md, "Errors").
 *
 * <p>Where PgQue raises an error, the engine raises it as PgQue does, with SQLSTATE
 * {@code P0001} ({@code raise_exception}) and PgQue's message, and carries its own code in the
 * error's CONSTRAINT field as {@value #CODE_PREFIX}{@code CODE} (for example
 * {@code pgque:PQ004}, a fenced slot lease). Every other error's code is its SQLSTATE.
 */
final class SqlErrors {

    /** What the engine puts before its code in the CONSTRAINT field of a {@code P0001} error. */
    static final String CODE_PREFIX = "pgque:";
    private static final String RAISE_EXCEPTION = "P0001";

    private SqlErrors() {
    }

    /**
     * The engine's code for a database error: the code it carries in the CONSTRAINT field of a
     * {@code P0001} error it raised as PgQue does, else the SQLSTATE (null when there is none).
     */
    static String code(SQLException e) {
        String state = e.getSQLState();
        if (RAISE_EXCEPTION.equals(state) && e instanceof PSQLException p) {
            ServerErrorMessage server = p.getServerErrorMessage();
            String constraint = server == null ? null : server.getConstraint();
            if (constraint != null && constraint.startsWith(CODE_PREFIX) && constraint.length() > CODE_PREFIX.length()) {
                return constraint.substring(CODE_PREFIX.length());
            }
        }
        return state;
    }

    /**
     * The exception for a failed operation.
     *
     * @param what what the client was doing, in words ("receive from queue 'q' as 'c'")
     * @param e    the database error, kept as the cause
     */
    static PgQueException map(String what, SQLException e) {
        String state = code(e);
        String message = what + " failed: " + e.getMessage();
        if (state == null) {
            return new PgQueException(message, null, e);
        }
        switch (state) {
            case "PQ001": return new QueueNotFoundException(message, state, e);
            case "PQ002": return new ConsumerNotFoundException(message, state, e);
            case "PQ003": return new BatchNotFoundException(message, state, e);
            case "PQ004": return new SlotFencedException(message, state, e);
            case "PQ005": return new SlotNotLeasedException(message, state, e);
            case "PQ006": return new PartitionMismatchException(message, state, e);
            case "PQ007": return new InstallRefusedException(message, state, e);
            case "PQ008": return new MessageNotFoundException(message, state, e);
            case "PQ009": return new WrongApiException(message, state, e);
            case "PQ010": return new SinkOffsetsFencedException(message, state, e);
            case "PQ011": return new SlotSetChangedException(message, state, e);
            case "42501": return new PermissionDeniedException(message, state, e);
            case "22023": return new InvalidArgumentException(message, state, e);
            default: return new PgQueException(message, state, e);
        }
    }
}

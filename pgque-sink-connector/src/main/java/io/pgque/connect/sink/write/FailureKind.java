/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import io.pgque.client.PgQueException;

import java.sql.SQLTransientConnectionException;
import java.util.Set;

/**
 * What a failed write means for the records in it. Decided from the SQLSTATE (and, for errors
 * raised before any SQL ran, the exception type), never from message text.
 */
public enum FailureKind {

    /** No working connection could be had (pool timeout, server unreachable). Retry later. */
    NO_CONNECTION,
    /** The work may succeed as it is if simply tried again: lost connection, serialization failure, deadlock, server restarting. */
    TRANSIENT,
    /** The database refused the content of some event (a data error, a size limit, a constraint). Narrow it down to the records. */
    RECORD,
    /** Anything else: a missing queue or engine, a permission, a bug. Retrying or skipping records would not help. */
    FATAL;

    /**
     * SQLSTATE classes that depend on the values written: 22 data exception, 23 integrity
     * constraint violation (a user's CHECK on an event table), 54 program limit exceeded (e.g.
     * a dedup key too long for its index), and P0001 (RAISE in a user's trigger).
     */
    private static final Set<String> RECORD_CLASSES = Set.of("22", "23", "54");

    /**
     * 22023 is how the engine reports a malformed call (arrays of unequal length, a NULL key):
     * a defect of the caller, equal for every record, so skipping records would only hide it.
     */
    private static final String ENGINE_INVALID_ARGUMENT = "22023";

    public static FailureKind of(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException) {
                return NO_CONNECTION;
            }
        }
        if (PgQueException.isTransient(failure)) {
            return TRANSIENT;
        }
        String state = sqlState(failure);
        if (state != null && (state.equals("P0001")
                || (RECORD_CLASSES.contains(state.substring(0, Math.min(2, state.length())))
                    && !state.equals(ENGINE_INVALID_ARGUMENT)))) {
            return RECORD;
        }
        return FATAL;
    }

    /** The first SQLSTATE found along the cause chain, or null. */
    public static String sqlState(Throwable failure) {
        return PgQueException.sqlStateOf(failure);
    }

    /** Whether waiting and trying again may help. */
    public boolean retriable() {
        return this == NO_CONNECTION || this == TRANSIENT;
    }
}

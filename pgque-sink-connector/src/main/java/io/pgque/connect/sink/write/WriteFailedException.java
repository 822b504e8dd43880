/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import org.apache.kafka.connect.errors.ConnectException;

import java.sql.SQLException;

/**
 * A JDBC step of the write transaction failed (connect, commit, savepoint, rollback). Keeps the
 * {@link SQLException} as cause so {@link FailureKind} can read its SQLSTATE.
 */
public final class WriteFailedException extends ConnectException {

    private static final long serialVersionUID = 1L;

    public WriteFailedException(String what, SQLException cause) {
        super(what + " failed: " + cause.getMessage(), cause);
    }
}

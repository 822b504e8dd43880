/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The engine install script refused to run (SQLSTATE {@code PQ007}): the database holds a
 * {@code pgque} schema this engine did not create, or a newer engine version (no downgrades).
 * Nothing was changed.
 */
public class InstallRefusedException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public InstallRefusedException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

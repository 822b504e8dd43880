/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The database role lacks the privilege for the call (SQLSTATE {@code 42501}). Producers need
 * {@code pgque_writer}, consumers {@code pgque_reader}, queue management and ticking
 * {@code pgque_admin}.
 */
public class PermissionDeniedException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public PermissionDeniedException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

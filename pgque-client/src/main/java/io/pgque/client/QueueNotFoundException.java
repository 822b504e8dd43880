/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The named queue does not exist (SQLSTATE {@code PQ001}). Create it first, or check the name:
 * queue names are case-sensitive.
 */
public class QueueNotFoundException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public QueueNotFoundException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

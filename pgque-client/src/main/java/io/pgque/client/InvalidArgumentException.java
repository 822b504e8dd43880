/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * An argument was rejected (SQLSTATE {@code 22023}): NULL where a value is required, out of
 * range, or too long. The message names the argument.
 */
public class InvalidArgumentException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public InvalidArgumentException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

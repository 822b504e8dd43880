/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The message is not part of the batch it was nacked in (SQLSTATE {@code PQ008}). Only messages of
 * the currently open batch can be nacked.
 */
public class MessageNotFoundException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public MessageNotFoundException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

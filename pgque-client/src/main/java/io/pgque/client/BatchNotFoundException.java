/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The batch id is unknown or the batch was already finished (SQLSTATE {@code PQ003}, or an
 * {@code ack} that finished nothing). Usually a second ack of the same batch, or an ack after the
 * subscription was dropped or repositioned.
 */
public class BatchNotFoundException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public BatchNotFoundException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

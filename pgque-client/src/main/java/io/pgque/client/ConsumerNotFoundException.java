/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The consumer is not subscribed to the queue (SQLSTATE {@code PQ002}). Subscribe before receiving;
 * a subscription only sees events ticked after it was created.
 */
public class ConsumerNotFoundException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public ConsumerNotFoundException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The partitioned set-up does not match the call (SQLSTATE {@code PQ006}): the consumer is not
 * partitioned, the slot count differs from the one it was subscribed with, or the slot is out of
 * range.
 */
public class PartitionMismatchException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public PartitionMismatchException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

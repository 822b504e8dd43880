/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The slot's lease is held by another worker (SQLSTATE {@code PQ004}). This worker lost the slot,
 * typically because its lease expired and another worker took over; it must stop processing the
 * slot's batch (its ack would be refused) and claim again.
 */
public class SlotFencedException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public SlotFencedException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

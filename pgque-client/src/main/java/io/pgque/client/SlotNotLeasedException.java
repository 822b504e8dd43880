/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * Nobody holds the slot's lease (SQLSTATE {@code PQ005}): claim the slot before receiving, acking or
 * nacking on it.
 */
public class SlotNotLeasedException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public SlotNotLeasedException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

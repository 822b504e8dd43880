/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * A stored sink offset is not the one the writer expected (SQLSTATE {@code PQ010}): another
 * writer moved it since. The caller's transaction must roll back; the same transaction again
 * would be refused again, so this is not {@linkplain #isTransient() transient}. Read the stored
 * offsets again and write only what they do not cover.
 */
public class SinkOffsetsFencedException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error. */
    public SinkOffsetsFencedException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

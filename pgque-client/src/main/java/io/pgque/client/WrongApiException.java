/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The call does not fit the consumer (SQLSTATE {@code PQ009}), e.g. plain receive or ack on a
 * partition slot consumer; use the partitioned operations ({@link SlotConsumer}) instead.
 */
public class WrongApiException extends PgQueException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error or from a result it recognises as this error. */
    public WrongApiException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The caller's slot count belongs to a resize (SQLSTATE {@code PQ011}): it is the new slot set
 * of a resize still in progress (those slots open after {@code complete_resize}), or the old set
 * a completed resize retired (its leases are void). A worker seeing this should switch to the
 * consumer's current slot set, not treat its configuration as wrong.
 */
public class SlotSetChangedException extends PartitionMismatchException {

    private static final long serialVersionUID = 1L;

    /** Built by the client from a database error. */
    public SlotSetChangedException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}

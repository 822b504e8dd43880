/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.SQLException;

/** Turns a {@link SQLException} into the client's exception for its SQLSTATE. */
final class SqlErrors {

    private SqlErrors() {
    }

    /**
     * The exception for a failed operation.
     *
     * @param what what the client was doing, in words ("receive from queue 'q' as 'c'")
     * @param e    the database error, kept as the cause
     */
    static PgQueException map(String what, SQLException e) {
        String state = e.getSQLState();
        String message = what + " failed: " + e.getMessage();
        if (state == null) {
            return new PgQueException(message, null, e);
        }
        switch (state) {
            case "PQ001": return new QueueNotFoundException(message, state, e);
            case "PQ002": return new ConsumerNotFoundException(message, state, e);
            case "PQ003": return new BatchNotFoundException(message, state, e);
            case "PQ004": return new SlotFencedException(message, state, e);
            case "PQ005": return new SlotNotLeasedException(message, state, e);
            case "PQ006": return new PartitionMismatchException(message, state, e);
            case "PQ007": return new InstallRefusedException(message, state, e);
            case "PQ008": return new MessageNotFoundException(message, state, e);
            case "PQ009": return new WrongApiException(message, state, e);
            case "PQ010": return new SinkOffsetsFencedException(message, state, e);
            case "PQ011": return new SlotSetChangedException(message, state, e);
            case "42501": return new PermissionDeniedException(message, state, e);
            case "22023": return new InvalidArgumentException(message, state, e);
            default: return new PgQueException(message, state, e);
        }
    }
}

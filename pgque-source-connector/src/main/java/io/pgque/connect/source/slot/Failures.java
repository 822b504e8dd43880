/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.slot;

import io.pgque.client.PgQueException;

/**
 * Tells failures worth retrying (the database is away or busy) from ones that need a person: the
 * client's classifier, which the sink uses too, with no policy of the source's on top.
 */
final class Failures {

    private Failures() {
    }

    /**
     * True for a lost or refused connection, a server restart, a pool that gave no connection in
     * time, a deadlock or serialization failure: the same call may work a moment later.
     */
    static boolean isTransient(Throwable failure) {
        return PgQueException.isTransient(failure);
    }
}

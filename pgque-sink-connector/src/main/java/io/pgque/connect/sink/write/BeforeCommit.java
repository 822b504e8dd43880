/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import java.sql.Connection;
import java.util.List;

/**
 * The last step of a put's transaction, run on its connection after the events are sent and
 * just before the commit, so that what it writes commits or rolls back with them. The
 * exactly-once mode stores the Kafka offsets here.
 */
@FunctionalInterface
public interface BeforeCommit {

    /** Nothing to add: the at-least-once mode. */
    BeforeCommit NOTHING = (connection, rejected) -> {
    };

    /**
     * @param connection the put's connection, inside its open transaction; do not commit, roll
     *                   back or close it
     * @param rejected   the events the database refused (left out of the transaction)
     * @throws RuntimeException to roll the whole put back
     */
    void run(Connection connection, List<RejectedEvent> rejected);
}

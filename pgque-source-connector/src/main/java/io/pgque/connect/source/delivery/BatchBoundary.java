/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.delivery;

import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.TransactionContext;

/**
 * Where a Kafka transaction ends when the connector defines the boundaries
 * ({@code transaction.boundary=connector}): after the last record of every PgQue batch, so one
 * batch is one transaction, committed together with the batch's source offset.
 */
@FunctionalInterface
public interface BatchBoundary {

    /** The batch whose last record is {@code last} has been handed over whole. */
    void batchEnds(SourceRecord last);

    /** The worker draws the boundaries itself (no exactly-once, or boundary poll or interval). */
    BatchBoundary NONE = last -> {
    };

    /** Commits after each batch when the worker gave the task a transaction context, else {@link #NONE}. */
    static BatchBoundary of(TransactionContext transactions) {
        return transactions == null ? NONE : transactions::commitTransaction;
    }
}

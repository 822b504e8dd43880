/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.delivery;

import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.TransactionContext;

/**
 * Where a Kafka transaction ends, and whether there are transactions at all. With
 * {@code transaction.boundary=connector} the task says where: after the last chunk of a round
 * over its slots (chunks of several slots' batches in ordered mode, handed over a chunk per
 * {@code poll()}), committed together with the source offsets of those records.
 */
public interface BatchBoundary {

    /** The records up to and including {@code last} are to be committed as one transaction. */
    void transactionEndsAfter(SourceRecord last);

    /**
     * True when the worker writes the task's records in Kafka transactions (exactly-once source
     * support): a record is then acknowledged to the task only once its transaction committed,
     * and the records of one {@code poll()} commit together.
     */
    boolean transactional();

    /**
     * True when the task draws the boundaries ({@code transaction.boundary=connector}): a
     * transaction then lasts until the task ends it, over as many polls as it takes, so the
     * task may hand a transaction's chunks over one poll at a time.
     */
    boolean drawnByTask();

    /**
     * Where the task draws the boundaries: the open transaction ends with this {@code poll()},
     * which may return no records (the transaction's last records went out on an earlier one).
     */
    void transactionEndsWithPoll();

    /** No transactions: at-least-once on a worker without exactly-once source support. */
    BatchBoundary NONE = new DrawnBoundary(false, null);

    /**
     * Transactions whose boundaries the worker draws itself ({@code transaction.boundary=poll},
     * every poll one transaction, or {@code interval}): the task has nothing to say.
     */
    BatchBoundary WORKER = new DrawnBoundary(true, null);

    /**
     * @param transactions the worker's transaction context: present exactly when
     *                     {@code transaction.boundary=connector}, whatever the connector's own guarantee
     * @param exactlyOnce  the connector runs {@code pgque.delivery.guarantee=exactly_once}, which
     *                     requires a worker with exactly-once source support
     */
    static BatchBoundary of(TransactionContext transactions, boolean exactlyOnce) {
        if (transactions != null) {
            return new DrawnBoundary(true, transactions);
        }
        return exactlyOnce ? WORKER : NONE;
    }
}

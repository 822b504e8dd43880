/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.delivery;

import io.pgque.connect.source.offsets.DeliveredPositions;
import io.pgque.connect.source.offsets.OffsetStorePositions;
import org.apache.kafka.connect.source.SourceTaskContext;

/**
 * How a task's records reach Kafka, chosen once when the task starts from
 * {@code pgque.delivery.guarantee} and the worker's transactions: where a Kafka transaction ends,
 * what Kafka already holds of a reader that resumes, and what follows from the two. The readers
 * ask this, never the configuration.
 *
 * @param exactlyOnce whether the connector runs {@code pgque.delivery.guarantee=exactly_once}
 * @param boundary    whether the worker writes in Kafka transactions, and told where each one ends
 * @param positions   what Kafka already holds per reader, read from the offsets committed with the
 *                    records (exactly-once), or {@link DeliveredPositions#NONE}
 */
public record Delivery(boolean exactlyOnce, BatchBoundary boundary, DeliveredPositions positions) {

    /**
     * @param context Connect's task context, or null (hand-driven tests: no transactions, and
     *                exactly-once has no offsets to resume from)
     */
    public static Delivery forTask(SourceTaskContext context, boolean exactlyOnce) {
        // A transaction context comes with transaction.boundary=connector, whatever our own
        // guarantee: the worker then commits only where the task says, so the task must say it
        // for every poll.
        BatchBoundary boundary = BatchBoundary.of(context == null ? null : context.transactionContext(), exactlyOnce);
        DeliveredPositions positions = exactlyOnce && context != null
                ? new OffsetStorePositions(context.offsetStorageReader()) : DeliveredPositions.NONE;
        return new Delivery(exactlyOnce, boundary, positions);
    }

    /** At-least-once, in the worker's transactions as {@code boundary} says (tests drive each kind). */
    public static Delivery atLeastOnce(BatchBoundary boundary) {
        return new Delivery(false, boundary, DeliveredPositions.NONE);
    }

    /**
     * Whether a batch read ahead may go to Kafka before the slot's current batch is acked: only
     * without Kafka transactions and without delivered positions. Exactly-once resumes a slot from
     * the offsets committed with its records, and those of a batch not yet open would name a
     * batch the slot may never open.
     */
    public boolean allowsSendAhead() {
        return !boundary.transactional() && positions == DeliveredPositions.NONE;
    }
}

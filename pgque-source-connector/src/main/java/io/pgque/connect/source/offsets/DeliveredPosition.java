/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.offsets;

/**
 * How far Kafka holds a slot's events, as the source offset committed with them says: the batch
 * and the last event of it. A batch is known by its id across a lease takeover, because the
 * engine re-issues the open batch, id and all, to whoever holds the slot next; events within a
 * batch come in event-id order, so "up to event e" is a prefix of the batch, and the rest of it
 * is read after e (see {@link StreamedBatch#heldInKafkaThrough}).
 *
 * @param batchId the batch the last committed record came from
 * @param eventId the event id of that record
 */
public record DeliveredPosition(long batchId, long eventId) {

    /**
     * True when this position lies beyond batch {@code otherBatchId}: Kafka holds a batch the
     * database has not issued yet. Batch ids only grow, so that means the database went back in
     * time (restored from a backup) while the connector's offsets did not.
     */
    public boolean isAheadOf(long otherBatchId) {
        return batchId > otherBatchId;
    }
}

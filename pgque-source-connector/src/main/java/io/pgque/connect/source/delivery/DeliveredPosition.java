/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.delivery;

import io.pgque.client.Batch;
import io.pgque.client.Message;

import java.util.ArrayList;
import java.util.List;

/**
 * How far Kafka holds a slot's events, as the source offset committed with them says: the batch
 * and the last event of it. A batch is known by its id across a lease takeover, because the
 * engine re-issues the open batch, id and all, to whoever holds the slot next; events within a
 * batch come in event-id order, so "up to event e" is a prefix of the batch.
 *
 * @param batchId the batch the last committed record came from
 * @param eventId the event id of that record
 */
public record DeliveredPosition(long batchId, long eventId) {

    /** The events of {@code batch} that Kafka does not hold yet: all, unless it is the batch this position is in. */
    public List<Message> remainderOf(Batch batch) {
        if (batch.batchId() != batchId) {
            return batch.messages();
        }
        List<Message> rest = new ArrayList<>();
        for (Message message : batch.messages()) {
            if (message.msgId() > eventId) {
                rest.add(message);
            }
        }
        return rest;
    }

    /**
     * True when this position lies beyond {@code batch}: Kafka holds a batch the database has not
     * issued yet. Batch ids only grow, so that means the database went back in time (restored
     * from a backup) while the connector's offsets did not.
     */
    public boolean isAheadOf(Batch batch) {
        return isAheadOf(batch.batchId());
    }

    /** {@link #isAheadOf(Batch)} for the batch with id {@code otherBatchId}. */
    public boolean isAheadOf(long otherBatchId) {
        return batchId > otherBatchId;
    }
}

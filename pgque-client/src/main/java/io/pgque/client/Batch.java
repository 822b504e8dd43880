/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.List;

/**
 * A whole batch, every event of it, in {@code msg_id} order. Acknowledge it as a whole once all
 * of its messages are processed; until then the consumer receives the same batch again.
 *
 * @param batchId  the batch id to ack (or nack messages in)
 * @param messages all messages of the batch, never empty, unmodifiable
 */
public record Batch(long batchId, List<Message> messages) {

    /** Copies {@code messages}; a batch always has at least one message. */
    public Batch {
        messages = List.copyOf(messages);
        if (messages.isEmpty()) {
            throw new IllegalArgumentException("a received batch has at least one message");
        }
    }

    /** Number of messages in the batch. */
    public int size() {
        return messages.size();
    }
}

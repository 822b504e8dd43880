/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.List;

/**
 * The first page of a batch: its first events in {@code msg_id} order, and whether more may
 * follow. Acknowledging finishes the whole batch, so a reader of pages must read the rest (see
 * {@link SlotConsumer#openRest}) before it acks.
 *
 * @param batchId  the batch id to ack
 * @param messages the page, never empty, unmodifiable
 * @param full     true when the page holds as many events as were asked for: the batch may have more
 */
public record BatchPage(long batchId, List<Message> messages, boolean full) {

    public BatchPage {
        messages = List.copyOf(messages);
        if (messages.isEmpty()) {
            throw new IllegalArgumentException("a received page has at least one message");
        }
    }

    BatchPage(long batchId, List<Message> messages, int asked) {
        this(batchId, messages, messages.size() >= asked);
    }

    /** The id of the page's last event: where the rest of the batch starts after. */
    public long lastMsgId() {
        return messages.get(messages.size() - 1).msgId();
    }
}

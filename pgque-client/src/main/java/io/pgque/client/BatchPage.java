/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.List;
import java.util.Optional;

/**
 * The first page of a batch: its first events in {@code msg_id} order, and whether more may
 * follow. Acknowledging finishes the whole batch, so a reader of pages must read the rest (see
 * {@link SlotConsumer#openRest}) before it acks.
 *
 * @param batchId  the batch id to ack
 * @param messages the page, never empty, unmodifiable
 * @param full     true when the batch has more events than the page
 */
public record BatchPage(long batchId, List<Message> messages, boolean full) {

    public BatchPage {
        messages = List.copyOf(messages);
        if (messages.isEmpty()) {
            throw new IllegalArgumentException("a received page has at least one message");
        }
    }

    /**
     * Rows to read for a first page of at most {@code max} events: one more, whose only use is to
     * tell whether the batch goes on (see {@link #of}).
     */
    static int probeSize(int max) {
        return max == Integer.MAX_VALUE ? max : max + 1;
    }

    /**
     * The page of at most {@code max} events read as {@link #probeSize} rows, or empty when none
     * was read. Full only when the batch has more than the page: a batch of exactly {@code max}
     * events is then known to be whole, and nobody opens a reader for an empty rest (each such
     * read scans the batch's whole window again). The probe row is dropped; the rest, read
     * after the page's last event, starts with it.
     */
    static Optional<BatchPage> of(List<Message> read, int max) {
        if (read.isEmpty()) {
            return Optional.empty();
        }
        boolean more = read.size() > max;
        return Optional.of(new BatchPage(read.get(0).batchId(), more ? read.subList(0, max) : read, more));
    }

    /** The id of the page's last event: where the rest of the batch starts after. */
    public long lastMsgId() {
        return messages.get(messages.size() - 1).msgId();
    }
}

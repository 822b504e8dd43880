/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.reader.RestOfBatch;
import io.pgque.client.Message;

import java.util.List;

/**
 * Where the poll thread stands in reading one batch from the database: events read and handed
 * over, the cursor over the rest, events read beyond the chunk handed over (a batch read ahead in
 * one query of several chunks), and, for exactly-once, how much of it Kafka held already.
 * Touched on the poll thread only.
 */
final class ReadPosition {

    /** No position in the batch: nothing of it is known to be in Kafka. */
    static final long NOTHING = Long.MIN_VALUE;

    private long received;
    private long sent;
    private long readThrough = NOTHING;
    /** Exactly-once: Kafka holds this batch up to this event already (committed under an earlier lease). */
    private long heldThrough = NOTHING;
    private RestOfBatch cursor;
    /** Events read but not yet taken, from {@link #bufferedAt}; null when none. */
    private List<Message> buffered;
    private int bufferedAt;
    /** Whether the batch has events beyond the buffered ones, to be read through a cursor. */
    private boolean moreAfterBuffer;

    /** Events of the batch Kafka held before it was received (exactly-once resume): not sent again. */
    void heldInKafkaThrough(long eventId) {
        heldThrough = eventId;
    }

    boolean resumed() {
        return heldThrough != NOTHING;
    }

    /** Moves past a chunk read from the database; returns the events to send (those Kafka does not hold yet). */
    List<Message> take(List<Message> chunk) {
        if (chunk.isEmpty()) {
            return chunk;
        }
        received += chunk.size();
        readThrough = chunk.get(chunk.size() - 1).msgId();
        List<Message> toSend = heldThrough == NOTHING || chunk.get(0).msgId() > heldThrough ? chunk
                : chunk.stream().filter(m -> m.msgId() > heldThrough).toList();
        sent += toSend.size();
        return toSend;
    }

    /** Keeps events read beyond the first chunk; {@code more}: whether the batch has more after these. */
    void buffer(List<Message> rest, boolean more) {
        buffered = rest.isEmpty() ? null : rest;
        bufferedAt = 0;
        moreAfterBuffer = more;
    }

    /** The next at most {@code max} buffered events, or null when none are left. */
    List<Message> takeBuffered(int max) {
        if (buffered == null) {
            return null;
        }
        List<Message> chunk = buffered.subList(bufferedAt, Math.min(bufferedAt + max, buffered.size()));
        bufferedAt += chunk.size();
        if (bufferedAt == buffered.size()) {
            buffered = null;
        }
        return chunk;
    }

    boolean hasBuffered() {
        return buffered != null;
    }

    /** True when nothing is buffered and no event follows the buffered ones: the batch is read. */
    boolean readToEnd() {
        return buffered == null && !moreAfterBuffer;
    }

    /** Where the rest of the batch starts: after the last event read, or after what Kafka holds. */
    long restAfter() {
        return Math.max(readThrough, heldThrough);
    }

    RestOfBatch cursor() {
        return cursor;
    }

    void cursorOpened(RestOfBatch opened) {
        cursor = opened;
    }

    /** Gives the cursor's connection back; the next read opens a new cursor after {@link #restAfter()}. */
    void closeCursor() {
        if (cursor != null) {
            RestOfBatch open = cursor;
            cursor = null;
            open.close();
        }
    }

    long received() {
        return received;
    }

    long sent() {
        return sent;
    }
}

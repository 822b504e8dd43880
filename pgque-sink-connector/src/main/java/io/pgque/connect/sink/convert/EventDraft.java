/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import java.time.Instant;
import java.util.Objects;

/**
 * Everything the sink will write for one record, as text ready for the engine's batch send:
 * the queue, {@code ev_type}, {@code ev_data}, {@code ev_extra1} (partition key),
 * {@code ev_extra2} (dedup key), {@code ev_extra3} and {@code ev_extra4}, and when the event is
 * due ({@code deliverAt}, null: at once). Null fields are written as SQL NULL. No field contains NUL.
 */
public record EventDraft(String queue, String type, String payload, String partitionKey,
                         String dedupKey, String extra3, String extra4, Instant deliverAt) {

    public EventDraft {
        Objects.requireNonNull(queue, "queue");
    }

    /** An event due at once. */
    public EventDraft(String queue, String type, String payload, String partitionKey, String dedupKey, String extra3,
                      String extra4) {
        this(queue, type, payload, partitionKey, dedupKey, extra3, extra4, null);
    }

    /** Without the payload's content: drafts may be logged, payloads should not be. */
    @Override
    public String toString() {
        return "EventDraft{queue=" + queue + ", type=" + type
                + ", payload=" + (payload == null ? "null" : "<" + payload.length() + " chars>")
                + ", partitionKey=" + partitionKey + ", dedupKey=" + dedupKey
                + ", extra3=" + extra3 + ", extra4=" + extra4 + ", deliverAt=" + deliverAt + '}';
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * An event to send. Immutable; build one with {@link #of(String, String)} and the {@code with…}
 * methods.
 *
 * @param type         event type, free text; null means the engine's {@code default}
 * @param payload      the event body, stored verbatim (JSON, if wanted, is the caller's business);
 *                     may be null
 * @param partitionKey the key that decides the event's slot for partitioned consumers (stored as
 *                     {@code extra1}); null sends the event to slot 0
 * @param extra2       free-form metadata; {@code send_idem} uses it for the idempotency key, so
 *                     idempotent sends refuse an event that sets it
 * @param extra3       free-form metadata
 * @param extra4       free-form metadata
 */
public record Event(String type, String payload, String partitionKey, String extra2, String extra3,
                    String extra4) {

    /** An event of the engine's default type. */
    public static Event of(String payload) {
        return new Event(null, payload, null, null, null, null);
    }

    /** An event of the given type. */
    public static Event of(String type, String payload) {
        return new Event(type, payload, null, null, null, null);
    }

    /** A copy with another type (null: the engine's {@code default}). */
    public Event withType(String newType) {
        return new Event(newType, payload, partitionKey, extra2, extra3, extra4);
    }

    /** A copy with a partition key: events with equal keys go to the same slot, in order. */
    public Event withPartitionKey(String key) {
        return new Event(type, payload, key, extra2, extra3, extra4);
    }

    /** A copy with {@code extra2} set (not allowed for idempotent sends, which store the key there). */
    public Event withExtra2(String value) {
        return new Event(type, payload, partitionKey, value, extra3, extra4);
    }

    /** A copy with {@code extra3} set. */
    public Event withExtra3(String value) {
        return new Event(type, payload, partitionKey, extra2, value, extra4);
    }

    /** A copy with {@code extra4} set. */
    public Event withExtra4(String value) {
        return new Event(type, payload, partitionKey, extra2, extra3, value);
    }
}

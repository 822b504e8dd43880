/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.Objects;

/**
 * An event sent with an idempotency key: within the key's time window, a second send with the
 * same key on the same queue appends nothing and returns the first event's id.
 *
 * <p>The key must name the <em>effect</em>, not just the entity: with {@code migrate:tenant-7}
 * a later, different migration of the same tenant inside the window is silently dropped; use
 * {@code migrate:tenant-7:v2}. Keys are exact, case-sensitive text, scoped to one queue.
 *
 * @param idemKey the idempotency key, not null (stored as the event's {@code extra2})
 * @param event   the event; its {@code extra2} must be null because the key goes there
 */
public record IdempotentEvent(String idemKey, Event event) {

    /** Checks that the key is present and that the event leaves {@code extra2} to it. */
    public IdempotentEvent {
        Objects.requireNonNull(idemKey, "idemKey");
        Objects.requireNonNull(event, "event");
        if (event.extra2() != null) {
            throw new IllegalArgumentException("extra2 carries the idempotency key; leave it null in an idempotent event");
        }
    }

    /** The event {@code event} sent under idempotency key {@code idemKey}. */
    public static IdempotentEvent of(String idemKey, Event event) {
        return new IdempotentEvent(idemKey, event);
    }
}

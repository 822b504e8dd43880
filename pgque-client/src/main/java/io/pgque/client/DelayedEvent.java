/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.time.Instant;
import java.util.Objects;

/**
 * An event to send with the time it is due ({@link Producer#sendBatchAt}).
 *
 * @param event     the event
 * @param deliverAt when it may be delivered; null, now or past: sent at once
 */
public record DelayedEvent(Event event, Instant deliverAt) {

    public DelayedEvent {
        Objects.requireNonNull(event, "event");
    }
}

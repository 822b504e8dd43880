/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.OptionalLong;

/**
 * What a send with a due time did: sent the event at once (it was due), or held it until it is
 * due. A held event gets its event id only when it enters the queue.
 *
 * @param eventId     the event's id, when it was sent at once
 * @param scheduledId the held event's id in {@code pgque.delayed_events}, when it was held
 */
public record SendAtResult(OptionalLong eventId, OptionalLong scheduledId) {

    /** True when the event waits for its due time. */
    public boolean held() {
        return scheduledId.isPresent();
    }
}

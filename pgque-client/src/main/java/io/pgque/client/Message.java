/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.time.Instant;

/**
 * A received event, as the engine's {@code pgque.message} type describes it.
 *
 * @param msgId      the event id; unique within a batch, kept by redeliveries
 * @param batchId    the batch it was delivered in
 * @param type       event type
 * @param payload    event body, verbatim
 * @param retryCount 0 on first delivery, then how often it was redelivered after a nack
 * @param createdAt  when the producing transaction started
 * @param extra1     partition key, by convention
 * @param extra2     idempotency key, when sent idempotently
 * @param extra3     free-form metadata
 * @param extra4     free-form metadata
 */
public record Message(long msgId, long batchId, String type, String payload, int retryCount,
                      Instant createdAt, String extra1, String extra2, String extra3,
                      String extra4) {

    /** The partition key the event was sent with ({@code extra1}), or null. */
    public String partitionKey() {
        return extra1;
    }

    /** The idempotency key the event was sent with ({@code extra2}), or null. */
    public String idemKey() {
        return extra2;
    }

    /** True when this is a redelivery after a nack. */
    public boolean isRetry() {
        return retryCount > 0;
    }
}

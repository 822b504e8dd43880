/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.time.Duration;
import java.time.Instant;

/**
 * A key of a partitioned consumer that a paused event holds back ({@link Slot#pause}), from
 * {@code pgque.blocked_keys}: none of the key's later events is handed out until that event is
 * acked after its redelivery or dead-lettered; they are set aside meanwhile, and every other key
 * of the slot flows.
 *
 * @param consumer     the logical consumer
 * @param slot         the key's slot, 0..n-1
 * @param n            the slot count of the slot set the key is blocked in
 * @param partitionKey the key
 * @param msgId        the event that holds it back
 * @param blockedSince when that event was first paused
 * @param state        where that event is: {@code retrying} (in the retry queue until {@code retryAfter}),
 *                     {@code redelivering} (on its way back to the slot), {@code in batch} (handed out with
 *                     the slot's open batch), {@code resuming} (acked or dead-lettered: the set-aside events go
 *                     out with the slot's next batch)
 * @param retryCount   how often it was retried
 * @param retryAfter   when it is due again, while {@code retrying}; else null
 * @param setAside     the key's later events set aside so far
 * @param reason       the reason given with its last pause, or null
 */
public record BlockedKey(String consumer, int slot, int n, String partitionKey, long msgId, Instant blockedSince,
                         String state, int retryCount, Instant retryAfter, long setAside, String reason) {

    /** How long the key has been blocked at {@code now}. */
    public Duration blockedFor(Instant now) {
        Duration d = Duration.between(blockedSince, now);
        return d.isNegative() ? Duration.ZERO : d;
    }
}

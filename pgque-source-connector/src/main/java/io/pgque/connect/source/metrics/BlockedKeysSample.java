/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.metrics;

import io.pgque.client.BlockedKey;

import java.util.Collection;
import java.util.Set;

/**
 * The blocked keys of a task's slots at one sample ({@code pgque.blocked_keys}): how many, and
 * since when the oldest is blocked, so that its age is current whenever it is read.
 *
 * @param keys          how many keys of the task's slots are blocked
 * @param oldestSinceMs when the longest-blocked one was blocked, in epoch milliseconds; 0 when none is
 */
public record BlockedKeysSample(long keys, long oldestSinceMs) {

    public static final BlockedKeysSample NONE = new BlockedKeysSample(0, 0);

    /** The sample of those of {@code blocked} that are on one of {@code slots}. */
    static BlockedKeysSample of(Collection<BlockedKey> blocked, Set<Integer> slots) {
        long count = 0;
        long oldest = Long.MAX_VALUE;
        for (BlockedKey key : blocked) {
            if (slots.contains(key.slot())) {
                count++;
                oldest = Math.min(oldest, key.blockedSince().toEpochMilli());
            }
        }
        return count == 0 ? NONE : new BlockedKeysSample(count, oldest);
    }

    /** The oldest block's age at {@code nowMs}, 0 when no key is blocked. */
    public long oldestAgeMillis(long nowMs) {
        return keys == 0 ? 0 : Math.max(nowMs - oldestSinceMs, 0);
    }
}

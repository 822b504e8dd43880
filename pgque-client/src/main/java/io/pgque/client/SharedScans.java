/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@link SharedWindows} of every {@link ReadAheadGroup} of this process that reads one
 * partitioned consumer in one scope (say, the tasks of a source connector that one Connect worker
 * runs): one scan of a window then serves the slots of all of them, not of one reader only. A
 * window's events are fixed once its later tick exists and each slot's read checks its own lease,
 * so which reader scanned a window does not matter; only the scope's readers share.
 */
final class SharedScans {

    /** What shares windows: a scope the caller names (a database, say), a queue, a consumer and its N. */
    private record Key(String scope, String queue, String consumer, int n) {
    }

    private static final Map<Key, SharedWindows> SHARED = new HashMap<>();

    private SharedScans() {
    }

    /** Joins {@code slots} to the windows of the scope's readers of the consumer. */
    static SharedWindows join(String scope, String queue, String consumer, int n, Collection<Integer> slots) {
        synchronized (SHARED) {
            SharedWindows windows = SHARED.computeIfAbsent(new Key(scope, queue, consumer, n),
                    k -> new SharedWindows(n));
            windows.join(slots);
            return windows;
        }
    }

    /** {@code slots} leave the windows {@link #join} gave; the last to leave drops them. */
    static void leave(String scope, String queue, String consumer, int n, Collection<Integer> slots,
                      SharedWindows windows) {
        synchronized (SHARED) {
            if (windows.leave(slots)) {
                SHARED.remove(new Key(scope, queue, consumer, n), windows);
            }
        }
    }

    /** The slots joined in {@code scope} for the consumer, by N; see {@link ReadAheadGroup#sharedSlots}. */
    static Map<Integer, Set<Integer>> joined(String scope, String queue, String consumer) {
        synchronized (SHARED) {
            Map<Integer, Set<Integer>> byN = new TreeMap<>();
            SHARED.forEach((key, windows) -> {
                if (key.scope().equals(scope) && key.queue().equals(queue) && key.consumer().equals(consumer)) {
                    byN.put(key.n(), windows.members());
                }
            });
            return byN;
        }
    }
}

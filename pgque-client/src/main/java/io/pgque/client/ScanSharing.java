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
 * Where the read-ahead groups of several readers share the windows they scan
 * ({@link SlotConsumer#readAheadGroup(Collection, ScanSharing)}): groups of one partitioned
 * consumer and slot count, given the same sharing, read each window once between them. A window's
 * events are fixed once its later tick exists and each slot's read checks its own lease, so which
 * reader scanned a window does not matter; what matters is who shares, and that is the owner's
 * choice: whoever runs the readers creates one sharing for those that should share (the tasks of
 * one source connector in one worker, say), hands it to their groups, and closes it once they are
 * gone. Each group joins when it is made and leaves when it is {@link ReadAheadGroup#clear}ed; the
 * windows of a consumer and N go with the last group that reads them. Thread-safe.
 */
public final class ScanSharing implements AutoCloseable {

    /** What shares windows inside one sharing: a queue, a consumer and its N. */
    private record Key(String queue, String consumer, int n) {
    }

    private final String name;
    private final Map<Key, SharedWindows> windows = new HashMap<>();
    private boolean closed;

    /** @param name what the sharing is for, as {@link #toString} and errors show it */
    public ScanSharing(String name) {
        this.name = name;
    }

    /**
     * Joins {@code slots} to the windows of the consumer's other groups here.
     *
     * @throws IllegalStateException once the sharing is closed
     */
    synchronized SharedWindows join(String queue, String consumer, int n, Collection<Integer> slots) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        SharedWindows joined = windows.computeIfAbsent(new Key(queue, consumer, n), k -> new SharedWindows(n));
        joined.join(slots);
        return joined;
    }

    /** {@code slots} leave the windows {@link #join} gave; the last to leave drops them. */
    synchronized void leave(String queue, String consumer, int n, Collection<Integer> slots, SharedWindows joined) {
        if (joined.leave(slots)) {
            windows.remove(new Key(queue, consumer, n), joined);
        }
    }

    /**
     * The slots of {@code consumer} that groups still read through these windows, by the N of
     * their slot set. Windows of an N nobody reads any more should be gone, or a later group of
     * that N would scan for slots that are not read: this lets the owner check that its readers
     * gave their groups back.
     */
    public synchronized Map<Integer, Set<Integer>> joined(String queue, String consumer) {
        Map<Integer, Set<Integer>> byN = new TreeMap<>();
        windows.forEach((key, shared) -> {
            if (key.queue().equals(queue) && key.consumer().equals(consumer)) {
                byN.put(key.n(), shared.members());
            }
        });
        return byN;
    }

    /** Whether no group reads through the sharing. */
    public synchronized boolean isEmpty() {
        return windows.isEmpty();
    }

    /**
     * No group joins from now on. Groups still joined keep reading through their windows until
     * they are cleared, so closing never fails a reader that is still stopping.
     */
    @Override
    public synchronized void close() {
        closed = true;
    }

    /** Whether {@link #close} was called. */
    public synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "ScanSharing{" + name + "}";
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.HashMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The windows one slot's read-ahead scan read for the other slots of one or more
 * {@link ReadAheadGroup}s: the events of each of them between two ticks, kept until that slot reads
 * ahead the same window. The events between two ticks are fixed once the later tick exists, so a
 * window kept is never wrong, only possibly of no further use: windows a slot has passed are
 * dropped when it reads on, and at most {@link #WINDOWS_KEPT} are kept per slot. The slots a scan
 * reads for are the members': the slots of every group that joined, which may be several readers
 * given one {@link ScanSharing}. While one member scans a window, another that is handed
 * the same window waits for that scan rather than scanning it too. Thread-safe.
 */
final class SharedWindows {

    /** Windows kept per slot: one slot may read two windows ahead of another before its rows go. */
    static final int WINDOWS_KEPT = 2;

    /** The events of one slot between two ticks, as read by another slot's scan. */
    private record Window(long fromTick, long toTick, List<Message> messages) {
    }

    /** Two ticks a scan is reading, for everyone who is handed them. */
    private record Span(long fromTick, long toTick) {
    }

    private final int slotCount;
    /** The members' slots, each with the number of groups that joined with it. */
    private final Map<Integer, Integer> members = new TreeMap<>();
    private final Map<Integer, ArrayDeque<Window>> kept = new HashMap<>();
    private final Set<Span> scanning = new HashSet<>();
    private long served;
    private long scanned;

    /** @param slotCount the consumer's N */
    SharedWindows(int slotCount) {
        this.slotCount = slotCount;
    }

    /** A group's slots read through these windows from now on. */
    synchronized void join(Collection<Integer> slots) {
        for (Integer slot : slots) {
            members.merge(slot, 1, Integer::sum);
        }
    }

    /**
     * A group's slots no longer read through these windows; what was kept for a slot no member
     * holds any more goes. True when no member is left.
     */
    synchronized boolean leave(Collection<Integer> slots) {
        for (Integer slot : slots) {
            if (members.merge(slot, -1, Integer::sum) <= 0) {
                members.remove(slot);
                kept.remove(slot);
            }
        }
        return members.isEmpty();
    }

    /** The members' slots. */
    synchronized Set<Integer> members() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(members.keySet()));
    }

    /** A scan for one slot alone keeps nothing worth keeping. */
    synchronized boolean shares() {
        return members.size() > 1 && slotCount > 1;
    }

    /** The members' slots other than {@code slot}: those a scan for {@code slot} also reads. */
    synchronized Integer[] othersThan(int slot) {
        return members.keySet().stream().filter(k -> k != slot).toArray(Integer[]::new);
    }

    /**
     * The events of {@code slot} between the two ticks, if a scan for another slot kept them; drops
     * the slot's windows it has passed, and one from the same tick to another (of no use now).
     */
    synchronized Optional<List<Message>> take(int slot, long fromTick, long toTick) {
        ArrayDeque<Window> windows = kept.get(slot);
        if (windows == null) {
            return Optional.empty();
        }
        List<Message> found = null;
        for (Iterator<Window> it = windows.iterator(); it.hasNext(); ) {
            Window w = it.next();
            if (w.fromTick() <= fromTick) {
                it.remove();
                if (w.fromTick() == fromTick && w.toTick() == toTick) {
                    found = w.messages();
                }
            }
        }
        if (found == null) {
            return Optional.empty();
        }
        served++;
        return Optional.of(found);
    }

    /**
     * Claims the scan of the window between the two ticks: true when nobody else is scanning it
     * (call {@link #scanned} after, whatever came of it); false when a member is, and the caller
     * should {@link #awaitScan} and take.
     */
    synchronized boolean startScan(long fromTick, long toTick) {
        return scanning.add(new Span(fromTick, toTick));
    }

    /** The scan claimed with {@link #startScan} is over (kept or not). */
    synchronized void scanned(long fromTick, long toTick) {
        scanning.remove(new Span(fromTick, toTick));
        notifyAll();
    }

    /**
     * Waits, at most {@code timeout} ms, while a member scans the window between the two ticks.
     *
     * @return false when the scan still runs after that
     */
    synchronized boolean awaitScan(long fromTick, long toTick, long timeout) throws InterruptedException {
        Span span = new Span(fromTick, toTick);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
        while (scanning.contains(span)) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** Keeps what a scan read for the other slots, between the two ticks (slots no member holds are dropped). */
    synchronized void keep(long fromTick, long toTick, Map<Integer, List<Message>> bySlot) {
        scanned++;
        for (Map.Entry<Integer, List<Message>> e : bySlot.entrySet()) {
            if (!members.containsKey(e.getKey())) {
                continue;
            }
            ArrayDeque<Window> windows = kept.computeIfAbsent(e.getKey(), k -> new ArrayDeque<>());
            windows.removeIf(w -> w.fromTick() == fromTick);
            while (windows.size() >= WINDOWS_KEPT) {
                windows.removeFirst();
            }
            windows.addLast(new Window(fromTick, toTick, e.getValue()));
        }
    }

    synchronized long served() {
        return served;
    }

    synchronized long scanned() {
        return scanned;
    }
}

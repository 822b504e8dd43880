/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.HashMap;
import java.util.Optional;

/**
 * The windows one slot's read-ahead scan read for the other slots of a {@link ReadAheadGroup}:
 * the events of each of them between two ticks, kept until that slot reads ahead the same window.
 * The events between two ticks are fixed once the later one exists, so a window kept is never
 * wrong, only possibly of no further use: windows a slot has passed are dropped when it reads on,
 * and at most {@link #WINDOWS_KEPT} are kept per slot. Thread-safe.
 */
final class SharedWindows {

    /** Windows kept per slot: one slot may read two windows ahead of another before its rows go. */
    static final int WINDOWS_KEPT = 2;

    /** The events of one slot between two ticks, as read by another slot's scan. */
    private record Window(long fromTick, long toTick, List<Message> messages) {
    }

    private final List<Integer> slots;
    private final int slotCount;
    private final Map<Integer, ArrayDeque<Window>> kept = new HashMap<>();
    private long served;
    private long scanned;

    /** @param slots the group's slots, in order; {@code slotCount}: the consumer's N */
    SharedWindows(List<Integer> slots, int slotCount) {
        this.slots = slots;
        this.slotCount = slotCount;
    }

    /** A group of one slot scans for that slot alone: nothing is worth keeping. */
    boolean shares() {
        return slots.size() > 1 && slotCount > 1;
    }

    /** The group's slots other than {@code slot}: those a scan for {@code slot} also reads. */
    Integer[] othersThan(int slot) {
        return slots.stream().filter(k -> k != slot).toArray(Integer[]::new);
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

    /** Keeps what a scan read for the other slots of the group, between the two ticks. */
    synchronized void keep(long fromTick, long toTick, Map<Integer, List<Message>> bySlot) {
        scanned++;
        for (Integer slot : bySlot.keySet()) {
            ArrayDeque<Window> windows = kept.computeIfAbsent(slot, k -> new ArrayDeque<>());
            windows.removeIf(w -> w.fromTick() == fromTick);
            while (windows.size() >= WINDOWS_KEPT) {
                windows.removeFirst();
            }
            windows.addLast(new Window(fromTick, toTick, bySlot.get(slot)));
        }
    }

    synchronized long served() {
        return served;
    }

    synchronized long scanned() {
        return scanned;
    }

    synchronized void clear() {
        kept.clear();
    }
}

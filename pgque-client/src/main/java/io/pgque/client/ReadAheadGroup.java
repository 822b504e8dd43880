/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Reading ahead for several slots of one partitioned consumer that one worker leases, one scan of
 * a window for all of them ({@link SlotConsumer#readAheadGroup}). Finding a slot's events means
 * reading every event of the window and hashing its key, so N slots reading the same window read
 * it N times. Slots that start at the same tick are handed the same windows (a window is chosen
 * from where the slot stands and the ticks that exist), so when one slot's read-ahead scans a
 * window, this keeps the events it found for the group's other slots; when one of them later
 * reads ahead and the engine names the same two ticks, its batch is served from here, without a
 * scan. The events between two ticks are fixed once the later one exists, so a window kept is
 * never wrong, only possibly of no further use: windows a slot has passed are dropped when it
 * reads on, and at most {@link #WINDOWS_KEPT} are kept per slot.
 *
 * <p>Thread-safe; meant for one reader (a task's read-ahead thread), which it does not block for
 * longer than a map update.
 */
public final class ReadAheadGroup {

    /** Windows kept per slot: one slot may read two windows ahead of another before its rows go. */
    static final int WINDOWS_KEPT = 2;

    private final SlotConsumer consumer;
    private final List<Integer> slots;
    private final Map<Integer, ArrayDeque<Window>> kept = new HashMap<>();
    private long served;
    private long scanned;

    /** The events of one slot between two ticks, as read by another slot's scan. */
    record Window(long fromTick, long toTick, List<Message> messages) {
    }

    ReadAheadGroup(SlotConsumer consumer, Collection<Integer> slots) {
        this.consumer = consumer;
        TreeSet<Integer> sorted = new TreeSet<>();
        for (Integer slot : slots) {
            if (slot == null || slot < 0 || slot >= consumer.slots()) {
                throw new IllegalArgumentException("slots must be between 0 and " + (consumer.slots() - 1)
                        + ", got " + slots);
            }
            sorted.add(slot);
        }
        this.slots = List.copyOf(sorted);
    }

    /** The group's slots, in order. */
    public List<Integer> slots() {
        return slots;
    }

    /**
     * {@link SlotConsumer#readAheadPage} for one of the group's slots: served from a window another
     * slot's scan read when the engine names the same ticks, else read in one scan for every slot
     * of the group.
     *
     * @throws IllegalArgumentException for a slot not in the group
     */
    public Optional<ReadAhead> readAheadPage(int slot, long batchId, int max) {
        return consumer.readAheadPage(member(slot), batchId, null, max, this);
    }

    /** {@link SlotConsumer#readAheadPageAfter} for one of the group's slots, sharing scans as {@link #readAheadPage} does. */
    public Optional<ReadAhead> readAheadPageAfter(int slot, long batchId, ReadAhead previous, int max) {
        Objects.requireNonNull(previous, "previous");
        return consumer.readAheadPage(member(slot), batchId, previous.toTick(), max, this);
    }

    private int member(int slot) {
        if (!slots.contains(slot)) {
            throw new IllegalArgumentException("slot " + slot + " is not one of " + slots);
        }
        return slot;
    }

    /** Batches read ahead from a window another slot's scan had read, without a scan of their own. */
    public synchronized long served() {
        return served;
    }

    /** Scans that read a window for more than one slot of the group. */
    public synchronized long scanned() {
        return scanned;
    }

    /** Forgets every window kept (e.g. when the reader stops); what is read on scans again. */
    public synchronized void clear() {
        kept.clear();
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

    /** A group of one slot scans for that slot alone: nothing is worth keeping. */
    boolean shares() {
        return slots.size() > 1 && consumer.slots() > 1;
    }

    @Override
    public String toString() {
        return "ReadAheadGroup{consumer=" + consumer.consumer() + ", slots=" + new ArrayList<>(slots) + "}";
    }
}

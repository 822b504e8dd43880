/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.Collection;
import java.util.List;
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
 * never wrong, only possibly of no further use (see {@link SharedWindows}).
 *
 * <p>Thread-safe; meant for one reader (a task's read-ahead thread), which it does not block for
 * longer than a map update.
 */
public final class ReadAheadGroup {

    private final PartitionedWorker worker;
    private final List<Integer> slots;
    /** Where the windows are shared with other readers' groups of the consumer; null: not shared. */
    private final ScanSharing sharing;
    private final SharedWindows windows;
    private final AheadPages pages;
    private boolean left;

    ReadAheadGroup(PartitionedWorker worker, Collection<Integer> slots, ScanSharing sharing) {
        this.worker = worker;
        TreeSet<Integer> sorted = new TreeSet<>();
        for (Integer slot : slots) {
            if (slot == null || slot < 0 || slot >= worker.n) {
                throw new IllegalArgumentException("slots must be between 0 and " + (worker.n - 1) + ", got " + slots);
            }
            sorted.add(slot);
        }
        this.slots = List.copyOf(sorted);
        this.sharing = sharing;
        if (sharing == null) {
            this.windows = new SharedWindows(worker.n);
            this.windows.join(this.slots);
        } else {
            this.windows = sharing.join(worker.queue, worker.consumer, worker.n, this.slots);
        }
        this.pages = new AheadPages(worker);
    }

    /** The group's slots, in order. */
    public List<Integer> slots() {
        return slots;
    }

    /**
     * Whether a scan for one of the group's slots reads for other slots too: the group's own, or
     * those of the other groups sharing its windows.
     */
    public boolean sharesScans() {
        return windows.shares();
    }

    /**
     * {@link Slot#readAheadPage} for one of the group's slots: served from a window another
     * slot's scan read when the engine names the same ticks, else read in one scan for every slot
     * of the group. A batch that scan read whole comes whole, even when it holds more than
     * {@code max} events: its events are in memory already, and a page would leave a rest to read
     * in one more scan of the window. (A scan that stops at its limit, {@code max} + 1 events for
     * each slot of the group, reads the slot's page alone.)
     *
     * @throws IllegalArgumentException for a slot not in the group
     */
    public Optional<ReadAhead> readAheadPage(int slot, long batchId, int max) {
        return pages.page(member(slot), batchId, null, max, windows);
    }

    /**
     * The first batch of one of the group's slots that has no open batch (a new lease, say), read
     * as {@link #readAheadPage} reads a next one and sharing its scan the same way: the group's
     * slots start at the same tick, so one scan reads every first window. Open it with
     * {@link Slot#open}. Empty when the slot has an open batch, when no tick follows where it
     * stands, when the window holds no event of the slot, and with an engine before 0.4.2.
     */
    public Optional<ReadAhead> readFirstPage(int slot, int max) {
        return pages.page(member(slot), null, null, max, windows);
    }

    /** {@link Slot#readAheadPageAfter} for one of the group's slots, sharing scans as {@link #readAheadPage} does. */
    public Optional<ReadAhead> readAheadPageAfter(int slot, long batchId, ReadAhead previous, int max) {
        Objects.requireNonNull(previous, "previous");
        return pages.page(member(slot), batchId, previous.toTick(), max, windows);
    }

    private int member(int slot) {
        if (!slots.contains(slot)) {
            throw new IllegalArgumentException("slot " + slot + " is not one of " + slots);
        }
        return slot;
    }

    /**
     * Batches read ahead from a window another slot's scan had read, without a scan of their own
     * (of every group sharing the windows).
     */
    public long served() {
        return windows.served();
    }

    /** Scans that read a window for more than one slot (of every group sharing the windows). */
    public long scanned() {
        return windows.scanned();
    }

    /**
     * The group stops reading: its slots leave the windows, and what was kept for them goes (with
     * the windows, when no other group shares them). What is read on scans again.
     */
    public void clear() {
        synchronized (this) {
            if (left) {
                return;
            }
            left = true;
        }
        if (sharing == null) {
            windows.leave(slots);
        } else {
            sharing.leave(worker.queue, worker.consumer, worker.n, slots, windows);
        }
    }

    @Override
    public String toString() {
        return "ReadAheadGroup{consumer=" + worker.consumer + ", slots=" + slots + (sharing != null ? ", " + sharing : "") + "}";
    }
}

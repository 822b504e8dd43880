/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Reading a slot's next batch ahead, without opening it, through one engine call
 * ({@code read_ahead_after_query}): the engine names the batch and hands out the queries over its
 * events, which this runs itself, whole into a cursor or as a page (rows returned through a
 * set-returning function are copied once more on the server, and so are rows the server sorts,
 * each costing about as much as the scan for ~1 KB events). So the events are read in no set order
 * and sorted here; only a batch larger than the page is read again, in order, for its first
 * events. Where a {@link SharedWindows} is given, one scan of a window serves every slot of it.
 */
final class AheadPages {

    private static final String READ_AHEAD_AFTER_QUERY = "select batch_id, from_tick, to_tick, query, "
            + "any_order_query, slots_query "
            + "from pgque.read_ahead_after_query(?, ?, ?, ?, ?, ?::bigint, ?::bigint, ?::bigint, ?::int, ?::int[])";

    /** The batch a read-ahead names: its id and the two ticks of its window. */
    private record Window(long batchId, long fromTick, long toTick) {
    }

    /**
     * How long a read waits for another reader's scan of the same window, at most, before it scans
     * that window too: a scan of a 160,000-event window took about 2 s on the build machine.
     */
    private static final long SCAN_WAIT_MS = 10_000;

    /**
     * What the engine hands out for a batch read ahead: its window and the queries over its
     * events (in order, in any order, and for every slot of a group; the last null without one).
     */
    private record Plan(Window window, String inOrder, String anyOrder, String forSlots) {
    }

    /**
     * The events read ahead, the ticks of their window, whether another slot's scan had read them,
     * and whether they are all of the slot's events of the window, however many (a scan for the
     * group reads them all: a page of them would leave a rest to read, in one more scan of the
     * window, that is in memory already).
     */
    private record Read(List<Message> messages, long fromTick, long toTick, boolean fromGroup, boolean whole) {

        static final Read NONE = new Read(List.of(), 0, 0, false, false);
    }

    private final PartitionedWorker worker;

    AheadPages(PartitionedWorker worker) {
        this.worker = worker;
    }

    /**
     * Whole into a cursor: see {@link Slot#readAhead}. The cursor runs the query the engine hands
     * out over all of the batch's events of the slot, in order, as a page read ahead does.
     */
    Optional<ReadAhead> throughCursor(DataSource connections, int slot, long batchId, int max) {
        Objects.requireNonNull(connections, "connections");
        WholeBatch.checkPageSize(max);
        String what = worker.what("read ahead of batch " + batchId + " on slot " + slot);
        List<Plan> plans = worker.db.run(what, c -> worker.engine.in(c).ahead().readsAhead()
                ? Sql.list(c, READ_AHEAD_AFTER_QUERY, AheadPages::plan,
                        worker.args(slot, batchId, null, worker.windowEvents, null, null))
                : List.of());
        if (plans.isEmpty()) {
            return Optional.empty();
        }
        Plan plan = plans.get(0);
        Window window = plan.window();
        BatchCursor cursor = BatchCursor.declare(connections, window.batchId(), what, null, plan.inOrder());
        return SlotReceiving.firstPageOf(cursor, max)
                .map(batch -> new ReadAhead(window.fromTick(), window.toTick(), batch));
    }

    /**
     * A page of the batch after open batch {@code batchId} (after tick {@code afterTick} when not
     * null: the batch after one read ahead; {@code batchId} null: the first batch of a slot with
     * none open), sharing the scan with the other slots of {@code windows} when given.
     */
    Optional<ReadAhead> page(int slot, Long batchId, Long afterTick, int max, SharedWindows windows) {
        WholeBatch.checkPageSize(max);
        String what = batchId == null ? "read ahead of the first batch on slot " + slot
                : "read ahead of batch " + batchId + " on slot " + slot;
        Read read = worker.db.run(worker.what(what),
                c -> read(c, slot, batchId, afterTick, BatchPage.probeSize(max), windows));
        return BatchPage.of(read.messages(), read.whole() ? Integer.MAX_VALUE : max)
                .map(page -> new ReadAhead(read.fromTick(), read.toTick(), new OpenedBatch(page, null),
                        read.fromGroup()));
    }

    private Read read(Connection c, int slot, Long batchId, Long afterTick, int probe, SharedWindows windows)
            throws SQLException {
        if (!worker.engine.in(c).ahead().readsPage(batchId, afterTick)) {
            return Read.NONE;
        }
        boolean shared = windows != null && windows.shares();
        Integer[] othersRead = shared ? windows.othersThan(slot) : new Integer[0];
        Array others = shared ? c.createArrayOf("int4", othersRead) : null;
        List<Plan> plans = Sql.list(c, READ_AHEAD_AFTER_QUERY, AheadPages::plan,
                worker.args(slot, batchId, afterTick, worker.windowEvents, probe, others));
        if (plans.isEmpty()) {
            return Read.NONE;
        }
        Plan plan = plans.get(0);
        Window window = plan.window();
        if (shared) {
            Read read = sharedRead(c, plan, slot, othersRead, windows, probe);
            if (read != null) {
                return read;
            }
        }
        // Fewer rows than asked for are the whole batch: put in order here, where that moves
        // references, rather than by the server, where sorting copies every row.
        List<Message> any = new ArrayList<>(Sql.list(c, plan.anyOrder(), Rows::message));
        List<Message> messages = any.size() < probe ? inOrder(any) : Sql.list(c, plan.inOrder(), Rows::message);
        return new Read(messages, window.fromTick(), window.toTick(), false, false);
    }

    private static Plan plan(ResultSet rs) throws SQLException {
        return new Plan(new Window(rs.getLong(1), rs.getLong(2), rs.getLong(3)), rs.getString(4), rs.getString(5),
                rs.getString(6));
    }

    /**
     * The slot's events of the plan's window through {@code windows}: kept by another slot's scan;
     * or, while a member scans that window, kept once that scan is done; or scanned here for every
     * slot in {@code others} too. Null when the slot is to be read alone: the scan stopped at its
     * limit, or the engine gave no query for several slots.
     */
    private static Read sharedRead(Connection c, Plan plan, int slot, Integer[] others, SharedWindows windows,
                                   int probe) throws SQLException {
        Window window = plan.window();
        long from = window.fromTick();
        long to = window.toTick();
        boolean claimed = false;
        while (true) {
            Optional<List<Message>> kept = windows.take(slot, from, to);
            if (kept.isPresent()) {
                return new Read(inOrder(asBatch(kept.get(), window.batchId())), from, to, true, true);
            }
            if (plan.forSlots() == null) {
                return null;
            }
            if (windows.startScan(from, to)) {
                claimed = true;
                break;
            }
            try {
                if (!windows.awaitScan(from, to, SCAN_WAIT_MS)) {
                    break; // scan it too rather than wait on longer
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        try {
            List<Message> own = readForGroup(c, plan, slot, others, windows, probe);
            return own == null ? null : new Read(inOrder(own), from, to, false, true);
        } finally {
            if (claimed) {
                windows.scanned(from, to);
            }
        }
    }

    /**
     * Runs a read-ahead's query over the window for the slot and {@code others}: keeps the other
     * slots' events in {@code windows} and returns the slot's own; null when the query stopped at
     * its limit (some slot has more than a page), which leaves whose events are whole unknown.
     */
    private static List<Message> readForGroup(Connection c, Plan plan, int slot, Integer[] others,
                                              SharedWindows windows, int probe) throws SQLException {
        Map<Integer, List<Message>> bySlot = new HashMap<>();
        for (Integer other : others) {
            bySlot.put(other, new ArrayList<>());
        }
        List<Message> own = new ArrayList<>();
        List<Message> all = Sql.list(c, plan.forSlots(), rs -> {
            Message message = Rows.message(rs);
            int of = rs.getInt(11);
            (of == slot ? own : bySlot.get(of)).add(message);
            return message;
        });
        if (all.size() >= (long) probe * (bySlot.size() + 1)) {
            return null;
        }
        windows.keep(plan.window().fromTick(), plan.window().toTick(), bySlot);
        return own;
    }

    private static List<Message> inOrder(List<Message> messages) {
        messages.sort(Comparator.comparingLong(Message::msgId));
        return messages;
    }

    /** Events a scan for another slot of a group read, as messages of the batch named for theirs. */
    private static List<Message> asBatch(List<Message> read, long batchId) {
        List<Message> messages = new ArrayList<>(read.size());
        for (Message m : read) {
            messages.add(m.inBatch(batchId));
        }
        return messages;
    }
}

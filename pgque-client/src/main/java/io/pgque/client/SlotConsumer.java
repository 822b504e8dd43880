/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * One worker's handle on a partitioned consumer: the consumer reads {@code queue} through
 * {@code n} slots, each event going to the slot of its partition key, so events with the same
 * key are processed in order by one worker at a time while different keys run in parallel.
 *
 * <p>A worker must hold a slot's lease to receive, ack or nack on it. {@link #claim} takes a
 * free or expired lease (or renews its own); every receive and ack renews it for the TTL given at
 * claim. A worker that stalls past its TTL may lose the slot to another worker, and then its next
 * call on the slot fails with {@link SlotFencedException} instead of acking work twice. Release
 * a slot only after acking its batch.
 *
 * <p>Every slot must be polled regularly: one unpolled slot holds back table rotation for the
 * whole queue. Worker ids must be unique among live workers. The object holds no state besides
 * its parameters; it is safe to share.
 */
public final class SlotConsumer {

    private static final Logger log = LoggerFactory.getLogger(SlotConsumer.class);

    private static final String RECEIVE = "select " + Rows.MESSAGE_COLUMNS
            + " from pgque.receive_partitioned(?, ?, ?, ?, ?, ?) m";
    private static final String RECEIVE_WINDOW = "select " + Rows.MESSAGE_COLUMNS
            + " from pgque.receive_partitioned(?, ?, ?, ?, ?, ?, ?) m";
    private static final String HAS_WINDOW = "select to_regprocedure("
            + "'pgque.receive_partitioned(text, text, int, int, text, int, bigint)') is not null";
    private static final String READ_BATCH = "select " + Rows.MESSAGE_COLUMNS
            + " from pgque.read_batch_partitioned(?, ?, ?, ?, ?, ?, ?) m";
    private static final String READ_AHEAD_WINDOW = "select batch_id, from_tick, to_tick "
            + "from pgque.read_ahead_window(?, ?, ?, ?, ?, ?, ?::bigint)";
    private static final String READ_AHEAD = "select " + Rows.MESSAGE_COLUMNS
            + " from pgque.read_ahead_partitioned(?, ?, ?, ?, ?, ?, ?, ?) m";
    private static final String READ_AHEAD_PAGE = "select " + Rows.MESSAGE_COLUMNS + ", m.from_tick, m.to_tick "
            + "from pgque.read_ahead_page(?, ?, ?, ?, ?, ?, ?::bigint, ?) m";
    private static final String READ_AHEAD_QUERY = "select batch_id, from_tick, to_tick, query, any_order_query "
            + "from pgque.read_ahead_query(?, ?, ?, ?, ?, ?, ?::bigint, ?)";
    private static final String READ_AHEAD_SLOTS_QUERY = "select batch_id, from_tick, to_tick, query, "
            + "any_order_query, slots_query from pgque.read_ahead_slots_query(?, ?, ?, ?, ?, ?, ?::bigint, ?, ?)";
    private static final String READ_AHEAD_AFTER_QUERY = "select batch_id, from_tick, to_tick, query, "
            + "any_order_query, slots_query from pgque.read_ahead_after_query(?, ?, ?, ?, ?, ?, ?, ?::bigint, ?, ?::int[])";
    private static final String OPEN_READ_AHEAD = "select pgque.open_read_ahead_partitioned(?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String HAS_READ_AHEAD = "select to_regprocedure("
            + "'pgque.read_ahead_window(text, text, int, int, text, bigint, bigint)') is not null";
    private static final String NACK = "select pgque.nack_partitioned(?, ?, ?, ?, ?, row(?, ?, null, "
            + "null, null, null, null, null, null, null)::pgque.message, " + Intervals.PARAM + ", ?)";
    private static final String DEAD_LETTER = "select pgque.dead_letter_partitioned(?, ?, ?, ?, ?, ?, ?)";
    // backlog_events (engine 0.4.0) is pending_events without the ids a forced tick drew (PgQ's
    // rule counts them); read through jsonb so that an older engine's view, without it, still works.
    private static final String STATUS = "select queue_name, consumer, slot, n, lease_owner, "
            + "lease_until, epoch, last_tick, coalesce((to_jsonb(s) ->> 'backlog_events')::bigint, pending_events)"
            + " as pending_events from pgque.partition_slot_status s "
            + "where queue_name = ? and consumer = ? and n = ? order by slot";

    private final Connections db;
    private final String queue;
    private final String consumer;
    private final int n;
    private final String workerId;
    /** Most queue events one batch may span when the slot is behind several ticks; null: one tick per batch. */
    private final Long windowEvents;
    /** Whether the installed engine has the catch-up receive; null until asked (once, on first use). */
    private volatile Boolean engineHasWindow;
    /** Whether the installed engine can read ahead; null until asked (once, on first use). */
    private volatile Boolean engineHasReadAhead;
    /** Whether the installed engine hands out the read-ahead query (engine 0.3.1). */
    private final EngineFunction readAheadQuery =
            new EngineFunction("pgque.read_ahead_query(text, text, int, int, text, bigint, bigint, int)");
    /** Whether the installed engine reads ahead for several slots in one scan (engine 0.3.3). */
    private final EngineFunction readAheadSlotsQuery =
            new EngineFunction("pgque.read_ahead_slots_query(text, text, int, int, text, bigint, bigint, int, int[])");
    /** Whether the installed engine reads ahead the batch after a batch read ahead (engine 0.3.4). */
    private final EngineFunction readAheadAfterQuery = new EngineFunction(
            "pgque.read_ahead_after_query(text, text, int, int, text, bigint, bigint, bigint, int, int[])");

    SlotConsumer(Connections db, String queue, String consumer, int n, String workerId) {
        this(db, queue, consumer, n, workerId, null);
    }

    private SlotConsumer(Connections db, String queue, String consumer, int n, String workerId, Long windowEvents) {
        this.db = db;
        this.queue = Objects.requireNonNull(queue, "queue");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.workerId = Objects.requireNonNull(workerId, "workerId");
        if (n < 1) {
            throw new IllegalArgumentException("slot count must be at least 1, was " + n);
        }
        this.n = n;
        this.windowEvents = windowEvents;
    }

    /**
     * This consumer, catching up in larger batches: a slot whose position is several ticks
     * behind gets them as one batch, as many ticks as together hold at most {@code windowEvents}
     * events of the queue (about 1/N of them are the slot's), and never less than one tick. A
     * reader then catches up in one read-send-ack cycle per window instead of one per tick, which
     * is what lets it overtake a backlog when each cycle costs more than a tick period. A slot
     * that keeps up still gets one tick per batch. Without it (the PgQue behaviour) every batch is
     * one tick.
     *
     * @param windowEvents at least 1
     */
    public SlotConsumer catchingUp(long windowEvents) {
        if (windowEvents < 1) {
            throw new IllegalArgumentException("windowEvents must be at least 1, was " + windowEvents);
        }
        return new SlotConsumer(db, queue, consumer, n, workerId, windowEvents);
    }

    /** The queue read. */
    public String queue() {
        return queue;
    }

    /** The logical consumer name (its slots are subscriptions named {@code consumer#k/N}). */
    public String consumer() {
        return consumer;
    }

    /** The slot count N. */
    public int slots() {
        return n;
    }

    /** The id this worker claims leases under. */
    public String workerId() {
        return workerId;
    }

    /**
     * Subscribes all N slots at once, all starting at the same tick (idempotent; refuses a
     * different N for an existing partitioned consumer).
     */
    public void subscribe() {
        db.run(what("subscribe"), c -> Sql.one(c, "select pgque.subscribe_partitioned(?, ?, ?)",
                rs -> null, queue, consumer, n));
    }

    /** Unsubscribes all slots, dropping their positions, retries and leases. */
    public void unsubscribe() {
        db.run(what("unsubscribe"), c -> Sql.one(c, "select pgque.unsubscribe_partitioned(?, ?)",
                rs -> null, queue, consumer));
    }

    /**
     * Claims (or, if this worker holds it, renews) the lease on {@code slot} for {@code ttl}.
     *
     * @return the lease, or empty if another worker holds a live lease on the slot or is busy on it
     */
    public Optional<SlotLease> claim(int slot, Duration ttl) {
        double seconds = Intervals.seconds(ttl);
        Long epoch = db.run(what("claim slot " + slot), c -> Sql.nullableLong(c,
                "select pgque.claim_slot(?, ?, ?, ?, " + Intervals.PARAM + ")",
                queue, consumer, slot, workerId, seconds));
        return epoch == null ? Optional.empty() : Optional.of(new SlotLease(slot, epoch));
    }

    /**
     * Claims the first slot, in slot order, that is not in {@code held} and whose lease is free;
     * one claim attempt per slot.
     *
     * @param held slots this worker already holds (skipped, so they are not merely renewed)
     * @return the new lease, or empty when every other slot is taken
     */
    public Optional<SlotLease> claimAny(Duration ttl, Set<Integer> held) {
        for (int slot = 0; slot < n; slot++) {
            if (!held.contains(slot)) {
                Optional<SlotLease> lease = claim(slot, ttl);
                if (lease.isPresent()) {
                    return lease;
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Gives up this worker's lease on {@code slot}; refused by the engine (a
     * {@link PgQueException} with SQLSTATE {@code 55000}) while the slot has an open batch: ack
     * first.
     *
     * @return true if released, false if this worker did not hold the lease
     */
    public boolean release(int slot) {
        return db.run(what("release slot " + slot), c -> Sql.one(c,
                "select pgque.release_slot(?, ?, ?, ?)", rs -> rs.getBoolean(1), queue, consumer, slot, workerId));
    }

    /** {@link #receive(int, int)} with pages of {@value Consumer#DEFAULT_PAGE_SIZE}. */
    public Optional<Batch> receive(int slot) {
        return receive(slot, Consumer.DEFAULT_PAGE_SIZE);
    }

    /**
     * Receives the slot's next batch, all of it (as {@link Consumer#receive(String, String, int)}
     * reads a batch: a first page, then the rest in one query); until acked, the
     * same batch comes back. Requires this worker's lease on the slot, and renews it.
     *
     * @return the batch, or empty when the slot has no events ready
     * @throws SlotNotLeasedException if nobody holds the slot
     * @throws SlotFencedException    if another worker holds it
     */
    public Optional<Batch> receive(int slot, int pageSize) {
        WholeBatch.checkPageSize(pageSize);
        return db.run(what("receive on slot " + slot), c -> readWhole(c, slot, pageSize));
    }

    /**
     * Finishes the slot's open batch and renews the lease.
     *
     * @throws BatchNotFoundException if the slot has no open batch
     * @throws SlotFencedException    if another worker took the slot over
     */
    public void ack(int slot) {
        int finished = db.run(what("ack slot " + slot), c -> ackOpen(c, slot));
        if (finished == 0) {
            throw new BatchNotFoundException(what("ack slot " + slot) + " failed: the slot has no open batch",
                    null, null);
        }
    }

    /**
     * {@link #ack(int)} and {@link #receive(int, int)} in one transaction, for a reader that
     * wants the slot's next batch as soon as the current one is done: one commit and one less
     * round trip per batch. Both happen or neither does. A slot with no open batch (an earlier
     * ack committed but its answer was lost) is not an error here: the ack's purpose is met.
     *
     * @return the slot's next batch, or empty when it has no events ready
     * @throws SlotNotLeasedException if nobody holds the slot
     * @throws SlotFencedException    if another worker holds it; nothing was acked
     */
    public Optional<Batch> ackAndReceive(int slot, int pageSize) {
        WholeBatch.checkPageSize(pageSize);
        return db.run(what("ack and receive on slot " + slot), c -> {
            ackOpen(c, slot);
            return readWhole(c, slot, pageSize);
        });
    }

    /**
     * {@link #ackAndReceive(int, int)} that acks only if the slot's open batch is {@code batchId}.
     * Use it whenever the call may be a retry: if an earlier ack-and-receive committed but its
     * answer was lost, the slot's open batch is already the next one, which the caller has never
     * seen; it is not acked but returned, so nothing is skipped.
     *
     * @return the slot's open batch after the ack (the next one, or the unseen one), or empty
     */
    public Optional<Batch> ackAndReceive(int slot, long batchId, int pageSize) {
        WholeBatch.checkPageSize(pageSize);
        return db.run(what("ack batch " + batchId + " and receive on slot " + slot), c -> {
            ackIfOpen(c, slot, batchId);
            return readWhole(c, slot, pageSize);
        });
    }

    /**
     * The first at most {@code max} events of the slot's batch (opening the next one when none
     * is open): for a reader that streams a batch rather than holding it whole. The rest, if the
     * page is full, comes from {@link #openRest}. Requires this worker's lease, and renews it.
     *
     * @return the page, or empty when the slot has no events ready
     */
    public Optional<BatchPage> receivePage(int slot, int max) {
        WholeBatch.checkPageSize(max);
        return db.run(what("receive on slot " + slot), c -> firstPage(c, slot, max));
    }

    /**
     * {@link #ack(int, long)} and {@link #receivePage} in one transaction; as
     * {@link #ackAndReceive(int, long, int)}, a batch other than {@code batchId} is not acked but
     * returned.
     */
    public Optional<BatchPage> ackAndReceivePage(int slot, long batchId, int max) {
        WholeBatch.checkPageSize(max);
        return db.run(what("ack batch " + batchId + " and receive on slot " + slot), c -> {
            ackIfOpen(c, slot, batchId);
            return firstPage(c, slot, max);
        });
    }

    /**
     * Opens a cursor over the events of the slot's open batch {@code batchId} after event
     * {@code afterMsgId}, on a connection of {@code connections} that the cursor keeps until it
     * is closed or read to its end (see {@link BatchCursor} for why). Checks and renews the lease.
     *
     * @throws SlotFencedException    if another worker holds the slot
     * @throws BatchNotFoundException if the slot has no open batch
     */
    public BatchCursor openRest(DataSource connections, int slot, long batchId, long afterMsgId) {
        Objects.requireNonNull(connections, "connections");
        return BatchCursor.open(connections, batchId, what("read batch " + batchId + " on slot " + slot),
                READ_BATCH, queue, consumer, slot, n, workerId, afterMsgId, WholeBatch.ALL);
    }

    /**
     * {@link #receivePage} for a slot that is behind, in one scan: opens the slot's next batch
     * and reads all of it, once, into a cursor on a connection of {@code connections} (see
     * {@link BatchCursor}); the first page is the cursor's first chunk. A batch larger than a page
     * otherwise costs two scans of its window, one for the first page and one for the rest, and
     * the scan is most of the cost of a read. A batch that fits one page gains nothing and pays
     * the cursor's round trips, so a reader that keeps up uses {@link #receivePage}.
     *
     * @return the first page and the cursor over the rest, or empty when the slot has no events ready
     * @throws SlotNotLeasedException if nobody holds the slot
     * @throws SlotFencedException    if another worker holds it
     */
    public Optional<OpenedBatch> receiveThroughCursor(DataSource connections, int slot, int max) {
        return throughCursor(connections, slot, null, max);
    }

    /**
     * {@link #ack(int, long)} and {@link #receiveThroughCursor} in one transaction; as
     * {@link #ackAndReceive(int, long, int)}, a batch other than {@code batchId} is not acked but
     * returned.
     */
    public Optional<OpenedBatch> ackAndReceiveThroughCursor(DataSource connections, int slot, long batchId, int max) {
        return throughCursor(connections, slot, batchId, max);
    }

    private Optional<OpenedBatch> throughCursor(DataSource connections, int slot, Long ackFirst, int max) {
        Objects.requireNonNull(connections, "connections");
        WholeBatch.checkPageSize(max);
        String what = ackFirst == null ? what("receive on slot " + slot)
                : what("ack batch " + ackFirst + " and receive on slot " + slot);
        Boolean known = engineHasWindow;
        boolean window = windowEvents != null && (known != null ? known : db.run(what, this::engineHasWindow));
        SqlWork<Integer> ack = ackFirst == null ? null : c -> ackIfOpen(c, slot, ackFirst);
        BatchCursor cursor = window
                ? BatchCursor.declare(connections, BatchCursor.UNKNOWN, what, ack, RECEIVE_WINDOW,
                        queue, consumer, slot, n, workerId, WholeBatch.ALL, windowEvents)
                : BatchCursor.declare(connections, BatchCursor.UNKNOWN, what, ack, RECEIVE,
                        queue, consumer, slot, n, workerId, WholeBatch.ALL);
        return firstPageOf(cursor, max);
    }

    /**
     * A batch read into {@code cursor}, as its first at most {@code max} events and the cursor
     * over the rest (closed when the page is all of it); empty when the cursor holds nothing.
     */
    private static Optional<OpenedBatch> firstPageOf(BatchCursor cursor, int max) {
        List<Message> page;
        try {
            page = cursor.next(max);
        } catch (RuntimeException e) {
            cursor.close();
            throw e;
        }
        if (page.isEmpty()) {
            return Optional.empty();
        }
        boolean more = !cursor.exhausted();
        return Optional.of(new OpenedBatch(new BatchPage(page.get(0).batchId(), page, more), more ? cursor : null));
    }

    /**
     * Reads the batch that will follow the slot's open batch {@code batchId} once that one is
     * acked, without opening it: its first at most {@code max} events, and a cursor over the rest
     * on a connection of {@code connections}. A reader streaming batch {@code batchId} to its
     * destination calls it on a thread of its own, so that reading the next batch (a scan of its
     * window, most of a read's cost) overlaps sending this one, then opens it with
     * {@link #ackAndOpen} when this one is done. The events between two ticks are fixed once the
     * later tick exists, so what is read ahead is exactly what the batch holds. Checks the lease
     * but does not renew it, and locks nothing: it may run beside the worker's acks and renewals.
     * The batch spans as many ticks as {@link #catchingUp} allows, one without it.
     *
     * @return the batch read ahead, or empty when no tick follows the open batch yet, when its
     *         window holds no event of the slot, when {@code batchId} is not the slot's open batch,
     *         or when the engine predates read-ahead
     * @throws SlotFencedException if another worker holds the slot
     */
    public Optional<ReadAhead> readAhead(DataSource connections, int slot, long batchId, int max) {
        Objects.requireNonNull(connections, "connections");
        WholeBatch.checkPageSize(max);
        String what = what("read ahead of batch " + batchId + " on slot " + slot);
        long[] window = db.run(what, c -> engineHasReadAhead(c)
                ? Sql.one(c, READ_AHEAD_WINDOW, rs -> {
                    long id = rs.getLong(1);
                    return rs.wasNull() ? null : new long[] {id, rs.getLong(2), rs.getLong(3)};
                }, queue, consumer, slot, n, workerId, batchId, windowEvents)
                : null);
        if (window == null) {
            return Optional.empty();
        }
        BatchCursor cursor = BatchCursor.declare(connections, window[0], what, null, READ_AHEAD,
                queue, consumer, slot, n, workerId, window[0], window[1], window[2]);
        return firstPageOf(cursor, max).map(batch -> new ReadAhead(window[1], window[2], batch));
    }

    /**
     * {@link #readAhead} for a batch expected to fit one page, without a cursor: the first at
     * most {@code max} events of the batch that will follow open batch {@code batchId}. When the
     * batch has more, the page is {@linkplain BatchPage#full() full} and comes without a cursor:
     * the rest is read once the batch is open ({@link #openRest}). The engine names the batch and
     * hands out the queries over its events, which this runs itself: rows returned through a
     * set-returning function are copied once more on the server, and so are rows the server
     * sorts, each costing about as much as the scan for ~1 KB events. So the events are read in
     * no set order and sorted here; only a batch larger than the page is read again, in order,
     * for its first events (an engine before 0.3.1 reads the page through a function, in one
     * round trip).
     */
    public Optional<ReadAhead> readAheadPage(int slot, long batchId, int max) {
        return readAheadPage(slot, batchId, null, max, null);
    }

    /**
     * {@link #readAheadPage(int, long, int)} one batch further: the batch that will follow
     * {@code previous}, a batch read ahead after open batch {@code batchId} and not opened yet. A
     * reader streaming large batches reads two ahead this way, so that reading a batch overlaps
     * sending the whole batch before it rather than only its end. Open it with
     * {@link #ackAndOpen} once {@code previous} is the open batch and acked; the engine refuses it
     * (false) if the slot moved otherwise in between. Empty when nothing follows {@code previous}
     * yet, when {@code batchId} is no longer the slot's open batch, and with an engine before 0.3.4.
     */
    public Optional<ReadAhead> readAheadPageAfter(int slot, long batchId, ReadAhead previous, int max) {
        Objects.requireNonNull(previous, "previous");
        return readAheadPage(slot, batchId, previous.toTick(), max, null);
    }

    /**
     * Reading ahead for several slots this worker leases, one scan of a window for all of them
     * where they stand at the same tick (see {@link ReadAheadGroup}). An engine before 0.3.3 reads
     * each slot's batch alone.
     *
     * @param slots the group's slots, each between 0 and N - 1
     */
    public ReadAheadGroup readAheadGroup(Collection<Integer> slots) {
        return new ReadAheadGroup(this, slots);
    }

    /**
     * {@link #readAheadPage(int, long, int)} (after tick {@code afterTick} when not null, see
     * {@link #readAheadPageAfter}), sharing the scan with the group's other slots when there is one.
     */
    Optional<ReadAhead> readAheadPage(int slot, long batchId, Long afterTick, int max, ReadAheadGroup group) {
        WholeBatch.checkPageSize(max);
        long[] ticks = new long[2];
        boolean[] fromGroup = new boolean[1];
        List<Message> read = db.run(what("read ahead of batch " + batchId + " on slot " + slot), c -> {
            if (!engineHasReadAhead(c) || afterTick != null && !readAheadAfterQuery.in(c)) {
                return List.of();
            }
            if (!readAheadQuery.in(c)) {
                return Sql.list(c, READ_AHEAD_PAGE, rs -> {
                    ticks[0] = rs.getLong(11);
                    ticks[1] = rs.getLong(12);
                    return Rows.message(rs);
                }, queue, consumer, slot, n, workerId, batchId, windowEvents, BatchPage.probeSize(max));
            }
            boolean shared = group != null && group.shares() && readAheadSlotsQuery.in(c);
            Array others = shared ? c.createArrayOf("int4", group.othersThan(slot)) : null;
            List<String[]> queries = afterTick != null
                    ? Sql.list(c, READ_AHEAD_AFTER_QUERY, rs -> readAheadPlan(rs, ticks, true), queue, consumer, slot, n,
                            workerId, batchId, afterTick, windowEvents, BatchPage.probeSize(max), others)
                    : shared
                    ? Sql.list(c, READ_AHEAD_SLOTS_QUERY, rs -> readAheadPlan(rs, ticks, true), queue, consumer, slot, n,
                            workerId, batchId, windowEvents, BatchPage.probeSize(max), others)
                    : Sql.list(c, READ_AHEAD_QUERY, rs -> readAheadPlan(rs, ticks, false), queue, consumer, slot, n,
                            workerId, batchId, windowEvents, BatchPage.probeSize(max));
            if (queries.isEmpty()) {
                return List.<Message>of();
            }
            String[] plan = queries.get(0);
            long named = plan[3] == null ? 0 : Long.parseLong(plan[3]);
            if (shared) {
                Optional<List<Message>> kept = group.take(slot, ticks[0], ticks[1]);
                if (kept.isPresent()) {
                    fromGroup[0] = true;
                    return inOrder(asBatch(kept.get(), named));
                }
                if (plan[2] != null) {
                    List<Message> own = readForGroup(c, plan[2], slot, ticks, group, BatchPage.probeSize(max));
                    if (own != null) {
                        return inOrder(own);
                    }
                }
            }
            // Fewer rows than asked for are the whole batch: put in order here, where that moves
            // references, rather than by the server, where sorting copies every row.
            List<Message> any = new ArrayList<>(Sql.list(c, plan[1], Rows::message));
            if (any.size() < BatchPage.probeSize(max)) {
                return inOrder(any);
            }
            return Sql.list(c, plan[0], Rows::message);
        });
        return BatchPage.of(read, max)
                .map(page -> new ReadAhead(ticks[0], ticks[1], new OpenedBatch(page, null), fromGroup[0]));
    }

    /** The ticks of the batch a read-ahead plan names, into {@code ticks}; its queries and its batch id. */
    private static String[] readAheadPlan(ResultSet rs, long[] ticks, boolean withSlots) throws SQLException {
        ticks[0] = rs.getLong(2);
        ticks[1] = rs.getLong(3);
        return new String[] {rs.getString(4), rs.getString(5), withSlots ? rs.getString(6) : null,
                Long.toString(rs.getLong(1))};
    }

    /**
     * Runs a read-ahead's query over the window for every slot of the group: keeps the other
     * slots' events in the group and returns the slot's own; null when the query stopped at its
     * limit (some slot has more than a page), which leaves whose events are whole unknown.
     */
    private static List<Message> readForGroup(Connection c, String slotsQuery, int slot, long[] ticks,
                                              ReadAheadGroup group, int probe) throws SQLException {
        Map<Integer, List<Message>> bySlot = new HashMap<>();
        for (Integer other : group.othersThan(slot)) {
            bySlot.put(other, new ArrayList<>());
        }
        List<Message> own = new ArrayList<>();
        int[] rows = new int[1];
        Sql.list(c, slotsQuery, rs -> {
            rows[0]++;
            int of = rs.getInt(11);
            (of == slot ? own : bySlot.get(of)).add(Rows.message(rs));
            return null;
        });
        if (rows[0] >= (long) probe * (bySlot.size() + 1)) {
            return null;
        }
        group.keep(ticks[0], ticks[1], bySlot);
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

    /**
     * Acks the slot's open batch if it is {@code batchId} and opens the batch read ahead after
     * it, in one transaction. Nothing is opened when the slot moved otherwise in between (the
     * batch read ahead then is of no use: {@link ReadAhead#discard} it and receive); the ack
     * stands either way.
     *
     * @return whether the slot's open batch now is {@code ahead}'s (also when an earlier call
     *         opened it and its answer was lost)
     * @throws SlotFencedException if another worker holds the slot; nothing was acked
     */
    public boolean ackAndOpen(int slot, long batchId, ReadAhead ahead) {
        Objects.requireNonNull(ahead, "ahead");
        return db.run(what("ack batch " + batchId + " and open batch " + ahead.batchId() + " on slot " + slot), c -> {
            ackIfOpen(c, slot, batchId);
            return Sql.one(c, OPEN_READ_AHEAD, rs -> rs.getBoolean(1),
                    queue, consumer, slot, n, workerId, ahead.batchId(), ahead.fromTick(), ahead.toTick());
        });
    }

    /** An engine installed by an older release cannot read ahead; the reader then reads each batch once it is open. */
    private boolean engineHasReadAhead(Connection c) throws SQLException {
        Boolean has = engineHasReadAhead;
        if (has == null) {
            has = Sql.one(c, HAS_READ_AHEAD, rs -> rs.getBoolean(1));
            if (!has) {
                log.info("The PgQue engine in this database predates read_ahead_window(): slots of consumer '{}' on "
                        + "queue '{}' read each batch once it is open. Install the bundled engine {} to upgrade it.",
                        consumer, queue, PgQueInstaller.bundledVersion());
            }
            engineHasReadAhead = has;
        }
        return has;
    }

    /** Whether the installed engine has a function of a later release; asked once, on first use. */
    private static final class EngineFunction {

        private final String probe;
        private volatile Boolean present;

        /** @param signature a constant of this class, never a value from outside */
        EngineFunction(String signature) {
            this.probe = "select to_regprocedure('" + signature + "') is not null";
        }

        boolean in(Connection c) throws SQLException {
            Boolean has = present;
            if (has == null) {
                has = Sql.one(c, probe, rs -> rs.getBoolean(1));
                present = has;
            }
            return has;
        }
    }

    private Optional<BatchPage> firstPage(Connection c, int slot, int max) throws SQLException {
        return BatchPage.of(receiveFirst(c, slot, BatchPage.probeSize(max)), max);
    }

    /** The first page of the slot's batch, opened with the catch-up window where one is set and the engine has it. */
    private List<Message> receiveFirst(Connection c, int slot, int max) throws SQLException {
        if (windowEvents != null && engineHasWindow(c)) {
            return Sql.list(c, RECEIVE_WINDOW, Rows::message, queue, consumer, slot, n, workerId, max, windowEvents);
        }
        return Sql.list(c, RECEIVE, Rows::message, queue, consumer, slot, n, workerId, max);
    }

    /**
     * An engine installed by an older release has no catch-up receive; a reader (which may not
     * install the engine) then reads one tick per batch, as before, and says so once.
     */
    private Boolean engineHasWindow(Connection c) throws SQLException {
        Boolean has = engineHasWindow;
        if (has == null) {
            has = Sql.one(c, HAS_WINDOW, rs -> rs.getBoolean(1));
            if (!has) {
                log.warn("The PgQue engine in this database predates receive_partitioned(..., i_window_events): "
                        + "slots of consumer '{}' on queue '{}' read one tick per batch and catch up more slowly "
                        + "after falling behind. Install the bundled engine {} to upgrade it.", consumer, queue,
                        PgQueInstaller.bundledVersion());
            }
            engineHasWindow = has;
        }
        return has;
    }

    /**
     * Finishes batch {@code batchId} if it is the slot's open batch, and renews the lease.
     *
     * @return false when the slot has no open batch or another one (the batch was finished before)
     * @throws SlotFencedException if another worker took the slot over
     */
    public boolean ack(int slot, long batchId) {
        return db.run(what("ack batch " + batchId + " on slot " + slot), c -> ackIfOpen(c, slot, batchId)) > 0;
    }

    private int ackOpen(Connection c, int slot) throws SQLException {
        return Sql.count(c, "select pgque.ack_partitioned(?, ?, ?, ?, ?)", queue, consumer, slot, n, workerId);
    }

    private int ackIfOpen(Connection c, int slot, long batchId) throws SQLException {
        return Sql.count(c, "select pgque.ack_partitioned(?, ?, ?, ?, ?, ?)",
                queue, consumer, slot, n, workerId, batchId);
    }

    private Optional<Batch> readWhole(Connection c, int slot, int pageSize) throws SQLException {
        return WholeBatch.read(pageSize,
                max -> receiveFirst(c, slot, max),
                (batchId, after) -> Sql.stream(c, READ_BATCH, pageSize, Rows::message,
                        queue, consumer, slot, n, workerId, after, WholeBatch.ALL));
    }

    /**
     * Asks for a message of the slot's open batch to come back later (on the same slot), or
     * dead-letters it after the queue's {@code max_retries}; the batch stays open, ack it after.
     */
    public void nack(int slot, Message message, Duration retryAfter, String reason) {
        Objects.requireNonNull(message, "message");
        double seconds = Intervals.seconds(retryAfter);
        db.run(what("nack message " + message.msgId() + " on slot " + slot), c -> Sql.count(c, NACK,
                queue, consumer, slot, n, workerId, message.msgId(), message.batchId(), seconds, reason));
    }

    /**
     * Moves a message of the slot's open batch to the queue's dead letters at once, whatever its
     * retry count, for an event this consumer can never process; the batch stays open, ack it
     * after. Doing it twice for one message leaves one dead letter.
     *
     * @param reason why, kept with the dead letter (required)
     */
    public void deadLetter(int slot, long msgId, String reason) {
        db.run(what("dead-letter message " + msgId + " on slot " + slot), c -> Sql.count(c, DEAD_LETTER,
                queue, consumer, slot, n, workerId, msgId, reason));
    }

    /**
     * The slot events with partition key {@code key} go to (a null key goes to slot 0), as the
     * engine computes it; stable across PostgreSQL versions.
     */
    public int slotOf(String key) {
        return db.run(what("compute slot of a key"),
                c -> Sql.one(c, "select pgque.slot_of(?, ?)", rs -> rs.getInt(1), key, n));
    }

    /**
     * Lease and position of every slot of this consumer's set of N slots, by slot (while a resize
     * is in progress, the view also has rows for the other set; they are left out).
     */
    public List<SlotStatus> status() {
        return db.run(what("read slot status"), c -> Sql.list(c, STATUS, SlotConsumer::slotStatus, queue, consumer, n));
    }

    private static SlotStatus slotStatus(ResultSet rs) throws SQLException {
        return new SlotStatus(rs.getString("queue_name"), rs.getString("consumer"), rs.getInt("slot"),
                rs.getInt("n"), rs.getString("lease_owner"), Rows.instant(rs, "lease_until"),
                rs.getLong("epoch"), Rows.nullableLong(rs, "last_tick"), Rows.nullableLong(rs, "pending_events"));
    }

    private String what(String action) {
        return action + " of partitioned consumer '" + consumer + "' (" + n + " slots) on queue '"
                + queue + "' as worker '" + workerId + "'";
    }
}

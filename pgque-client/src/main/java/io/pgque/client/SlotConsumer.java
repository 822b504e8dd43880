/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One worker's handle on a partitioned consumer: the consumer reads {@code queue} through
 * {@code n} slots, each event going to the slot of its partition key, so events with the same
 * key are processed in order by one worker at a time while different keys run in parallel.
 *
 * <p>Each slot is read through its handle, {@link #slot}: a worker must hold a slot's lease to
 * receive, ack or nack on it (see {@link Slot}).
 *
 * <p>Every slot must be polled regularly: one unpolled slot holds back table rotation for the
 * whole queue. Worker ids must be unique among live workers. The object holds no state besides
 * its parameters; it is safe to share.
 */
public final class SlotConsumer {

    // backlog_events (engine 0.4.0) is pending_events without the ids a forced tick drew (PgQ's
    // rule counts them); read through jsonb so that an older engine's view, without it, still works.
    private static final String STATUS = "select queue_name, consumer, slot, n, lease_owner, "
            + "lease_until, epoch, last_tick, coalesce((to_jsonb(s) ->> 'backlog_events')::bigint, pending_events)"
            + " as pending_events from pgque.partition_slot_status s "
            + "where queue_name = ? and consumer = ? and n = ? order by slot";

    private static final String BLOCKED_KEYS = "select consumer, slot, n, partition_key, msg_id, blocked_since, "
            + "state, retry_count, retry_after, set_aside, reason from pgque.blocked_keys(?, ?)";

    private final PartitionedWorker worker;

    SlotConsumer(Connections db, String queue, String consumer, int n, String workerId,
                 EngineCapabilities.Known engine) {
        this(new PartitionedWorker(db, queue, consumer, n, workerId, null, engine));
    }

    private SlotConsumer(PartitionedWorker worker) {
        this.worker = worker;
    }

    /**
     * This consumer, catching up in larger batches: a slot whose position is several ticks
     * behind gets them as one batch, as many ticks as together hold at most {@code windowEvents}
     * events of the queue (about 1/N of them are the slot's), and never less than one tick. A
     * reader then catches up in one read-send-ack cycle per window instead of one per tick, which
     * is what lets it overtake a backlog when each cycle costs more than a tick period. A slot
     * that keeps up still gets one tick per batch. Without it (the PgQue behaviour) every batch is
     * one tick; so it is with an engine before 0.2.0.
     *
     * @param windowEvents at least 1
     */
    public SlotConsumer catchingUp(long windowEvents) {
        return new SlotConsumer(worker.catchingUp(windowEvents));
    }

    /** The queue read. */
    public String queue() {
        return worker.queue;
    }

    /** The logical consumer name (its slots are subscriptions named {@code consumer#k/N}). */
    public String consumer() {
        return worker.consumer;
    }

    /** The slot count N. */
    public int slots() {
        return worker.n;
    }

    /** The worker's name, what the engine shows of this handle's leases (the secret it claims them with is never shown). */
    public String workerId() {
        return worker.workerId;
    }

    /** What the engine's slot functions are called with: the worker's name and this handle's secret. Never shown. */
    String leaseId() {
        return worker.leaseId;
    }

    /** Slot {@code slot} (0 to N - 1), as this worker reads it. */
    public Slot slot(int slot) {
        return new Slot(worker, slot);
    }

    /**
     * Subscribes all N slots at once, all starting at the same tick (idempotent; refuses a
     * different N for an existing partitioned consumer).
     */
    public void subscribe() {
        worker.db.run(worker.what("subscribe"), c -> Sql.one(c, "select pgque.subscribe_partitioned(?, ?, ?)",
                rs -> null, worker.queue, worker.consumer, worker.n));
    }

    /** Unsubscribes all slots, dropping their positions, retries and leases. */
    public void unsubscribe() {
        worker.db.run(worker.what("unsubscribe"), c -> Sql.one(c, "select pgque.unsubscribe_partitioned(?, ?)",
                rs -> null, worker.queue, worker.consumer));
    }

    /**
     * Claims the first slot, in slot order, that is not in {@code held} and whose lease is free;
     * one claim attempt per slot.
     *
     * @param held slots this worker already holds (skipped, so they are not merely renewed)
     * @return the new lease, or empty when every other slot is taken
     */
    public Optional<SlotLease> claimAny(Duration ttl, Set<Integer> held) {
        for (int slot = 0; slot < worker.n; slot++) {
            if (!held.contains(slot)) {
                Optional<SlotLease> lease = slot(slot).claim(ttl);
                if (lease.isPresent()) {
                    return lease;
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Reading ahead for several slots this worker leases, one scan of a window for all of them
     * where they stand at the same tick (see {@link ReadAheadGroup}). An engine before 0.3.3 reads
     * each slot's batch alone.
     *
     * @param slots the group's slots, each between 0 and N - 1
     */
    public ReadAheadGroup readAheadGroup(Collection<Integer> slots) {
        return new ReadAheadGroup(worker, slots, null);
    }

    /**
     * {@link #readAheadGroup} whose scans read for the slots of every other group of this consumer
     * and N given the same {@code sharing} (the readers of one application on one database, say,
     * under different worker ids): one scan of a window then serves all of them, and while one
     * group scans a window, another handed the same window waits for it. Call
     * {@link ReadAheadGroup#clear} when the group stops reading.
     *
     * @throws IllegalStateException when {@code sharing} is closed
     */
    public ReadAheadGroup readAheadGroup(Collection<Integer> slots, ScanSharing sharing) {
        return new ReadAheadGroup(worker, slots, java.util.Objects.requireNonNull(sharing, "sharing"));
    }

    /**
     * The slot events with partition key {@code key} go to (a null key goes to slot 0), as the
     * engine computes it; stable across PostgreSQL versions.
     */
    public int slotOf(String key) {
        return worker.db.run(worker.what("compute slot of a key"),
                c -> Sql.one(c, "select pgque.slot_of(?, ?)", rs -> rs.getInt(1), key, worker.n));
    }

    /**
     * Lease and position of every slot of this consumer's set of N slots, by slot (while a resize
     * is in progress, the view also has rows for the other set; they are left out).
     */
    public List<SlotStatus> status() {
        return worker.db.run(worker.what("read slot status"), c -> Sql.list(c, STATUS, SlotConsumer::slotStatus,
                worker.queue, worker.consumer, worker.n));
    }

    /**
     * The keys of this consumer that paused events hold back ({@link Slot#pause}), by slot, with
     * since when, the event that holds each back and where that event is.
     */
    public List<BlockedKey> blockedKeys() {
        return worker.db.run(worker.what("read blocked keys"), c -> Sql.list(c, BLOCKED_KEYS, SlotConsumer::blockedKey,
                worker.queue, worker.consumer));
    }

    /**
     * For an operator who fixed what made the event holding back {@code key} fail: its
     * redelivery is due now, not at its retry time (the retry mover brings it back on its next run).
     *
     * @return false when the event is not in the retry queue but on its way back already
     * @throws InvalidArgumentException when the key is not blocked
     */
    public boolean retryBlockedKey(String key) {
        return worker.db.run(worker.what("retry blocked key"), c -> Sql.count(c,
                "select pgque.retry_blocked_key(?, ?, ?)", worker.queue, worker.consumer, key)) == 1;
    }

    /**
     * For an operator who gives up on the event holding back {@code key}: it goes to the dead letters
     * with {@code reason} and the key resumes, its set-aside events first. Refused (a
     * {@link PgQueException} with SQLSTATE {@code 55000}) while the event is on its way back to
     * its slot: call again once the slot's worker has read it.
     *
     * @return the dead-lettered event's id
     * @throws InvalidArgumentException when the key is not blocked, or the reason is empty
     */
    public long deadLetterBlockedKey(String key, String reason) {
        return worker.db.run(worker.what("dead-letter blocked key"), c -> Sql.one(c,
                "select pgque.dead_letter_blocked_key(?, ?, ?, ?)", rs -> rs.getLong(1),
                worker.queue, worker.consumer, key, reason));
    }

    private static BlockedKey blockedKey(ResultSet rs) throws SQLException {
        return new BlockedKey(rs.getString("consumer"), rs.getInt("slot"), rs.getInt("n"), rs.getString("partition_key"),
                rs.getLong("msg_id"), Rows.instant(rs, "blocked_since"), rs.getString("state"),
                rs.getInt("retry_count"), Rows.instant(rs, "retry_after"), rs.getLong("set_aside"),
                rs.getString("reason"));
    }

    private static SlotStatus slotStatus(ResultSet rs) throws SQLException {
        return new SlotStatus(rs.getString("queue_name"), rs.getString("consumer"), rs.getInt("slot"),
                rs.getInt("n"), rs.getString("lease_owner"), Rows.instant(rs, "lease_until"),
                rs.getLong("epoch"), Rows.nullableLong(rs, "last_tick"), Rows.nullableLong(rs, "pending_events"));
    }
}

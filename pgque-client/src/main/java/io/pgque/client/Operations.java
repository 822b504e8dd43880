/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.List;
import java.util.OptionalLong;

/**
 * Ticking and maintenance, normally run on a schedule (one call per transaction; needs
 * {@code pgque_admin}, except {@link #version()}).
 *
 * <p>Each call must be its own transaction: a tick records the snapshot of the transaction that
 * makes it, so events sent in that same transaction only show up one batch later. Run these on a
 * DataSource-backed {@link PgQue}, not inside a caller's transaction.
 */
public final class Operations {

    private final Connections db;

    Operations(Connections db) {
        this.db = db;
    }

    /** Ticks every queue whose tick is due; returns how many queues ticked. */
    public long ticker() {
        Long ticked = db.run("ticker", c -> Sql.nullableLong(c, "select pgque.ticker()"));
        return ticked == null ? 0 : ticked;
    }

    /**
     * One round of a ticker run every {@code period}: ticks every queue {@link #ticker()} would,
     * and every queue whose events have waited {@code period} since its last tick whatever its
     * thresholds. A round that finds no queue due only reads (nothing to commit); rounds that
     * tick are serialised in the database, and one that finds another running does nothing, so
     * several processes can share the duty.
     *
     * @return how many queues ticked (0 when none was due), or empty when another round was running
     */
    public OptionalLong tickerRound(java.time.Duration period) {
        // One statement, its own transaction: a round trip less for a call the ticker makes every period.
        return optional(db.runStatement("ticker round", c -> Sql.nullableLong(c,
                "select pgque.ticker_round(" + Intervals.PARAM + ")", Intervals.seconds(period))));
    }

    /** Ticks {@code queue} if a tick is due; returns the new tick id, or empty if none was due. */
    public OptionalLong ticker(String queue) {
        return optional(db.run("tick queue '" + queue + "'",
                c -> Sql.nullableLong(c, "select pgque.ticker(?)", queue)));
    }

    /**
     * Makes the next {@link #ticker} call tick {@code queue} even if no tick is due (it does not
     * tick by itself). Inflates the queue's event-count estimates.
     *
     * @return the queue's current last tick id, if any
     */
    public OptionalLong forceNextTick(String queue) {
        return optional(db.run("force next tick of queue '" + queue + "'",
                c -> Sql.nullableLong(c, "select pgque.force_next_tick(?)", queue)));
    }

    /** Rotates event tables that are due and runs each queue's extra maintenance. */
    public int maint() {
        return db.run("maint", c -> Sql.count(c, "select pgque.maint()"));
    }

    /**
     * Step 2 of table rotation: stamps each queue that {@link #maint()} switched to its next
     * event table with this transaction's id, which later rotations and tick clean-up compare
     * snapshots against. It must be a transaction of its own, after {@code maint()}'s committed.
     *
     * @return how many queues were stamped
     */
    public int maintRotateTablesStep2() {
        return db.run("maint_rotate_tables_step2", c -> Sql.count(c, "select pgque.maint_rotate_tables_step2()"));
    }

    /**
     * Moves every retry whose time has come back into its queue (a later tick then delivers it);
     * returns how many moved.
     */
    public int maintRetryEvents() {
        return db.run("maint_retry_events", c -> Sql.count(c, "select pgque.maint_retry_events()"));
    }

    /** The engine's health roll-up ({@code pgque.status()}), one row per component, in its order. */
    public List<ComponentStatus> status() {
        return db.run("read engine status", c -> Sql.list(c, "select component, status, detail from pgque.status()",
                rs -> new ComponentStatus(rs.getString(1), rs.getString(2), rs.getString(3))));
    }

    /** The installed engine's version. */
    public String version() {
        return db.run("read engine version", c -> Sql.one(c, "select pgque.version()", rs -> rs.getString(1)));
    }

    private static OptionalLong optional(Long value) {
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }
}

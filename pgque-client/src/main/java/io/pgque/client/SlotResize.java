/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Changes the slot count N of a partitioned consumer while events flow, keeping per-key order:
 * {@link #begin} seals the old epoch at a tick, the old slots are read up to it as usual,
 * {@link #complete} switches to the new slots once they are all there, {@link #abort} gives up
 * without losing anything. See {@code docs/slots.md}. Holds no state besides its parameters.
 */
public final class SlotResize {

    private static final String STATE = "select slot_set, resize_state, resize_epoch, n, old_n, new_n, seal_tick, "
            + "slot, blocked_by from pgque.partition_slot_status where queue_name = ? and consumer = ? "
            + "order by slot_set desc, slot";

    private final Connections db;
    private final String queue;
    private final String consumer;

    SlotResize(Connections db, String queue, String consumer) {
        this.db = db;
        this.queue = Objects.requireNonNull(queue, "queue");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
    }

    /**
     * Starts moving the consumer to {@code newN} slots.
     *
     * @return the seal tick
     * @throws PgQueException with SQLSTATE {@code 55000} when a resize is already in progress
     */
    public long begin(int newN) {
        return db.run(what("begin resize to " + newN + " slots"),
                c -> Sql.one(c, "select pgque.begin_resize(?, ?, ?)", rs -> rs.getLong(1), queue, consumer, newN));
    }

    /** True when {@link #complete} would succeed now; false also when no resize is in progress. */
    public boolean ready() {
        return db.run(what("check resize readiness"),
                c -> Sql.one(c, "select pgque.resize_ready(?, ?)", rs -> rs.getBoolean(1), queue, consumer));
    }

    /**
     * Switches to the new slot set.
     *
     * @return the new slot count
     * @throws PgQueException with SQLSTATE {@code 55000} when not ready (the message lists what blocks) or not resizing
     */
    public int complete() {
        return db.run(what("complete resize"),
                c -> Sql.count(c, "select pgque.complete_resize(?, ?)", queue, consumer));
    }

    /**
     * Gives the resize up; the old slots read on.
     *
     * @return the slot count that stays
     */
    public int abort() {
        return db.run(what("abort resize"), c -> Sql.count(c, "select pgque.abort_resize(?, ?)", queue, consumer));
    }

    /** The consumer's resize state, or empty when it is not a partitioned consumer. */
    public Optional<ResizeState> state() {
        return db.run(what("read resize state"), this::readState);
    }

    private Optional<ResizeState> readState(Connection c) throws SQLException {
        List<Row> rows = Sql.list(c, STATE, SlotResize::row, queue, consumer);
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Row first = rows.get(0);
        List<String> blockers = new ArrayList<>();
        int n = first.n;
        for (Row row : rows) {
            if (!"new".equals(row.slotSet)) {
                n = row.n;
            }
            if (row.blockedBy != null) {
                blockers.add("slot " + row.slot + ": " + row.blockedBy);
            }
        }
        return Optional.of(new ResizeState("draining".equals(first.state), first.epoch, n, first.newN,
                first.sealTick, blockers));
    }

    private record Row(String slotSet, String state, long epoch, int n, Integer newN, Long sealTick, int slot,
                       String blockedBy) {
    }

    private static Row row(ResultSet rs) throws SQLException {
        long newN = rs.getLong("new_n");
        Integer next = rs.wasNull() ? null : (int) newN;
        return new Row(rs.getString("slot_set"), rs.getString("resize_state"), rs.getLong("resize_epoch"),
                rs.getInt("n"), next, Rows.nullableLong(rs, "seal_tick"), rs.getInt("slot"),
                rs.getString("blocked_by"));
    }

    private String what(String action) {
        return action + " of partitioned consumer '" + consumer + "' on queue '" + queue + "'";
    }
}

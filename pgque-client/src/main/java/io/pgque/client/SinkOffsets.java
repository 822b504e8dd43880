/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.List;
import java.util.Objects;

/**
 * One sink connector's Kafka offsets, stored by the engine beside the events it wrote
 * ({@code pgque.sink_offsets} and the functions next to it), keyed by topic and partition. A
 * writer that moves them in the transaction that writes the events (bind the client to that
 * transaction's connection, {@link PgQue#using(java.sql.Connection)}) makes the queue and the
 * offsets agree whatever fails.
 *
 * <p>The connector's rows belong to the login role that wrote them first; another role (not
 * {@code pgque_admin}) gets a {@link PermissionDeniedException}.
 */
public final class SinkOffsets {

    /** A partition's stored next offset: the first record not yet written. */
    public record Stored(String topic, int partition, long nextOffset) {
    }

    /**
     * A partition's step in a write: from {@code expected} (what the writer believes is stored;
     * null when nothing is) to {@code next}.
     */
    public record Move(String topic, int partition, Long expected, long next) {
        public Move {
            Objects.requireNonNull(topic, "topic");
        }
    }

    /** An operator's change of a partition: set to {@code next}, or forgotten when it is null. */
    public record Change(String topic, int partition, Long next) {
        public Change {
            Objects.requireNonNull(topic, "topic");
        }
    }

    private final Connections db;
    private final String connector;

    SinkOffsets(Connections db, String connector) {
        this.db = db;
        this.connector = connector;
    }

    /** Every stored offset of the connector, ordered by topic and partition. */
    public List<Stored> read() {
        return db.run("read the stored offsets of connector '" + connector + "'", c -> Sql.list(c,
                "select topic, kafka_partition, next_offset from pgque.sink_offsets(?)",
                rs -> new Stored(rs.getString(1), rs.getInt(2), rs.getLong(3)), connector));
    }

    /**
     * Moves the stored offsets, all or none ({@code pgque.sink_commit_offsets}). Meant for a
     * client bound to the transaction that writes the events, so they commit together.
     *
     * @throws SinkOffsetsFencedException when a stored offset is not the expected one; the
     *         caller's transaction must roll back
     */
    public void commit(List<Move> moves) {
        if (moves.isEmpty()) {
            return;
        }
        db.run("store the offsets of connector '" + connector + "'", c -> Sql.one(c,
                "select pgque.sink_commit_offsets(?, ?, ?, ?, ?)", rs -> null, connector,
                Sql.array(c, "text", moves, Move::topic, String[]::new),
                Sql.array(c, "int4", moves, Move::partition, Integer[]::new),
                Sql.array(c, "int8", moves, Move::expected, Long[]::new),
                Sql.array(c, "int8", moves, Move::next, Long[]::new)));
    }

    /**
     * Sets or forgets stored offsets unconditionally ({@code pgque.sink_set_offsets}): for an
     * operator, while no writer runs.
     *
     * @return how many partitions were set or forgotten
     */
    public int set(List<Change> changes) {
        return db.run("set the stored offsets of connector '" + connector + "'", c -> Sql.count(c,
                "select pgque.sink_set_offsets(?, ?, ?, ?)", connector,
                Sql.array(c, "text", changes, Change::topic, String[]::new),
                Sql.array(c, "int4", changes, Change::partition, Integer[]::new),
                Sql.array(c, "int8", changes, Change::next, Long[]::new)));
    }

    /**
     * Forgets every stored offset of the connector ({@code pgque.sink_reset_offsets}).
     *
     * @return how many partitions were forgotten
     */
    public int reset() {
        return db.run("reset the stored offsets of connector '" + connector + "'",
                c -> Sql.count(c, "select pgque.sink_reset_offsets(?)", connector));
    }
}

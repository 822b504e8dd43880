/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Receiving, paging, reading on through a cursor, acking and dead-lettering a batch: written once
 * for every kind of consumer (plain, a slot of a partitioned one, a member of a cooperative one),
 * which differ only in the statements that name their batch to the engine ({@link Statements}).
 */
final class BatchReads {

    /** A statement with its arguments. */
    record Call(String sql, Object... args) {
    }

    /** How one consumer names its batches to the engine. */
    interface Statements {

        /** The receive that opens (or re-issues) the consumer's batch, its first {@code max} events. */
        Call receive(Connection c, int max) throws SQLException;

        /** Every event of open batch {@code batchId} after {@code afterMsgId}, in order. */
        Call readOn(long batchId, long afterMsgId);

        /** Finishes batch {@code batchId}; counts what it finished. */
        Call ack(long batchId);

        /** Moves one event of the open batch to the dead letters. */
        default Call deadLetter(long msgId, String reason) {
            throw new UnsupportedOperationException("a plain consumer dead-letters through nack");
        }

        /** Names an action for messages: "receive as ... on queue 'q'". */
        String what(String action);
    }

    private final Connections db;
    private final Statements statements;

    BatchReads(Connections db, Statements statements) {
        this.db = db;
        this.statements = statements;
    }

    /** The whole batch (a first page, the rest in one more query), or empty when none is ready. */
    Optional<Batch> receive(int pageSize) {
        WholeBatch.checkPageSize(pageSize);
        return db.run(statements.what("receive"), c -> whole(c, pageSize));
    }

    /** {@link #receive} on {@code c}, inside a transaction the caller runs. */
    Optional<Batch> whole(Connection c, int pageSize) throws SQLException {
        return WholeBatch.read(pageSize, max -> first(c, max), (batchId, after) -> {
            Call rest = statements.readOn(batchId, after);
            return Sql.stream(c, rest.sql(), pageSize, Rows::message, rest.args());
        });
    }

    /**
     * The first at most {@code max} events of the batch; the rest, when the page is full, through
     * {@link #openRest}.
     */
    Optional<BatchPage> receivePage(int max) {
        WholeBatch.checkPageSize(max);
        return db.run(statements.what("receive"), c -> page(c, max));
    }

    /** {@link #receivePage} on {@code c}, inside a transaction the caller runs. */
    Optional<BatchPage> page(Connection c, int max) throws SQLException {
        return BatchPage.of(first(c, BatchPage.probeSize(max)), max);
    }

    private List<Message> first(Connection c, int max) throws SQLException {
        Call receive = statements.receive(c, max);
        return Sql.list(c, receive.sql(), Rows::message, receive.args());
    }

    /** A cursor over the events of open batch {@code batchId} after {@code afterMsgId}, on a connection of its own. */
    BatchCursor openRest(DataSource connections, long batchId, long afterMsgId) {
        Objects.requireNonNull(connections, "connections");
        Call rest = statements.readOn(batchId, afterMsgId);
        return BatchCursor.open(connections, batchId, statements.what("read batch " + batchId), rest.sql(),
                rest.args());
    }

    /** Finishes batch {@code batchId}; false when it was not open (finished before, or not this consumer's). */
    boolean ack(long batchId) {
        return db.run(statements.what("ack batch " + batchId), c -> ack(c, batchId)) > 0;
    }

    /** {@link #ack} on {@code c}, inside a transaction the caller runs; counts what it finished. */
    int ack(Connection c, long batchId) throws SQLException {
        Call ack = statements.ack(batchId);
        return Sql.count(c, ack.sql(), ack.args());
    }

    void deadLetter(long msgId, String reason) {
        Call deadLetter = statements.deadLetter(msgId, reason);
        db.run(statements.what("dead-letter message " + msgId), c -> Sql.count(c, deadLetter.sql(),
                deadLetter.args()));
    }
}

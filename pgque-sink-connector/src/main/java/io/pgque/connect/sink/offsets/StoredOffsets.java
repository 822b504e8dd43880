/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.offsets;

import io.pgque.client.PgQue;
import io.pgque.client.PgQueException;
import io.pgque.client.SinkOffsets;
import io.pgque.client.SinkOffsetsFencedException;
import io.pgque.connect.sink.write.WriteFailedException;
import org.apache.kafka.common.TopicPartition;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One connector's Kafka offsets as the engine stores them beside the events
 * ({@code pgque.sink_offsets}, {@code pgque.sink_commit_offsets}, through the client's
 * {@link SinkOffsets}). Every task of the connector shares the rows, keyed by topic and
 * partition, so a partition that moves to another task in a rebalance is resumed from where its
 * previous owner committed.
 */
public final class StoredOffsets {

    private final String connector;

    public StoredOffsets(String connector) {
        if (connector == null || connector.isBlank()) {
            throw new IllegalArgumentException("the connector name keys the stored offsets; it must not be empty");
        }
        this.connector = connector;
    }

    public String connector() {
        return connector;
    }

    /**
     * The stored next offset of every partition this connector ever wrote, in a transaction of
     * its own.
     *
     * @throws WriteFailedException carrying the SQLSTATE, so the caller can tell a lost
     *         connection from a missing function
     */
    public Map<TopicPartition, Long> read(DataSource dataSource) {
        return failingAs("reading the stored Kafka offsets", () -> {
            Map<TopicPartition, Long> stored = new HashMap<>();
            for (SinkOffsets.Stored offset : PgQue.using(dataSource).sinkOffsets(connector).read()) {
                stored.put(new TopicPartition(offset.topic(), offset.partition()), offset.nextOffset());
            }
            return stored;
        });
    }

    /**
     * Moves the stored offsets inside the caller's open transaction on {@code connection}; they
     * commit (or roll back) with it, and so with the events written in it.
     *
     * @throws OffsetsFencedException when a stored offset is not the expected one; the caller
     *         must roll back
     * @throws WriteFailedException   for any other failure, carrying the SQLSTATE
     */
    public void commit(Connection connection, List<OffsetMove> moves) {
        if (moves.isEmpty()) {
            return;
        }
        List<SinkOffsets.Move> engineMoves = new ArrayList<>(moves.size());
        for (OffsetMove move : moves) {
            engineMoves.add(new SinkOffsets.Move(move.partition().topic(), move.partition().partition(),
                    move.expected(), move.next()));
        }
        try {
            PgQue.using(connection).sinkOffsets(connector).commit(engineMoves);
        } catch (SinkOffsetsFencedException e) {
            throw new OffsetsFencedException(moves, databaseError(e));
        } catch (PgQueException e) {
            throw new WriteFailedException("storing the Kafka offsets of connector '" + connector + "'", databaseError(e));
        }
    }

    /**
     * An operator's change, in a transaction of its own: each partition set to its offset, or
     * forgotten where the offset is null (it then starts from Kafka's offset). Unconditional:
     * meant for a stopped connector, when no task writes.
     *
     * @return how many partitions were set or forgotten
     * @throws WriteFailedException carrying the SQLSTATE
     */
    public int alter(DataSource dataSource, Map<TopicPartition, Long> offsets) {
        List<SinkOffsets.Change> changes = new ArrayList<>(offsets.size());
        offsets.forEach((partition, next) -> changes.add(
                new SinkOffsets.Change(partition.topic(), partition.partition(), next)));
        return failingAs("altering the stored Kafka offsets",
                () -> PgQue.using(dataSource).sinkOffsets(connector).set(changes));
    }

    /**
     * Forgets every stored offset of this connector, in a transaction of its own.
     *
     * @return how many partitions were forgotten
     * @throws WriteFailedException carrying the SQLSTATE
     */
    public int reset(DataSource dataSource) {
        return failingAs("resetting the stored Kafka offsets",
                () -> PgQue.using(dataSource).sinkOffsets(connector).reset());
    }

    private <T> T failingAs(String doing, Supplier<T> work) {
        try {
            return work.get();
        } catch (PgQueException e) {
            throw new WriteFailedException(doing + " of connector '" + connector + "'", databaseError(e));
        }
    }

    /**
     * The database's own error behind the client's (the client keeps it as the cause), so the
     * message and the SQLSTATE the sink reports are the database's words, as for its other
     * JDBC steps.
     */
    private static SQLException databaseError(PgQueException e) {
        return e.getCause() instanceof SQLException sql ? sql : new SQLException(e.getMessage(), e.sqlState(), e);
    }
}

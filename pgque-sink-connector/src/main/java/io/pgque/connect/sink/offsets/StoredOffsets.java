/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.offsets;

import io.pgque.connect.sink.write.WriteFailedException;
import org.apache.kafka.common.TopicPartition;

import javax.sql.DataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One connector's Kafka offsets as the engine stores them beside the events
 * ({@code pgque.sink_offsets}, {@code pgque.sink_commit_offsets}). Every task of the connector
 * shares the rows, keyed by topic and partition, so a partition that moves to another task in
 * a rebalance is resumed from where its previous owner committed.
 */
public final class StoredOffsets {

    /**
     * The SQLSTATE the engine raises when a stored offset is not the expected one. Its own code,
     * so it is never mistaken for a serialization failure (40001), which is worth retrying as
     * it is; a fenced transaction would be refused again.
     */
    static final String FENCED = "PQ010";

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
        return inOwnTransaction(dataSource, "reading", connection -> {
            Map<TopicPartition, Long> stored = new HashMap<>();
            try (PreparedStatement ps = connection.prepareStatement(
                    "select topic, kafka_partition, next_offset from pgque.sink_offsets(?)")) {
                ps.setString(1, connector);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        stored.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                    }
                }
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
        int n = moves.size();
        String[] topics = new String[n];
        Integer[] partitions = new Integer[n];
        Long[] expected = new Long[n];
        Long[] next = new Long[n];
        for (int i = 0; i < n; i++) {
            OffsetMove move = moves.get(i);
            topics[i] = move.partition().topic();
            partitions[i] = move.partition().partition();
            expected[i] = move.expected();
            next[i] = move.next();
        }
        try (PreparedStatement ps = connection.prepareStatement(
                "select pgque.sink_commit_offsets(?, ?, ?, ?, ?)")) {
            ps.setString(1, connector);
            ps.setArray(2, array(connection, "text", topics));
            ps.setArray(3, array(connection, "int4", partitions));
            ps.setArray(4, array(connection, "int8", expected));
            ps.setArray(5, array(connection, "int8", next));
            ps.executeQuery().close();
        } catch (SQLException e) {
            if (FENCED.equals(e.getSQLState())) {
                throw new OffsetsFencedException(moves, e);
            }
            throw new WriteFailedException("storing the Kafka offsets of connector '" + connector + "'", e);
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
        List<Map.Entry<TopicPartition, Long>> entries = new ArrayList<>(offsets.entrySet());
        int n = entries.size();
        String[] topics = new String[n];
        Integer[] partitions = new Integer[n];
        Long[] next = new Long[n];
        for (int i = 0; i < n; i++) {
            topics[i] = entries.get(i).getKey().topic();
            partitions[i] = entries.get(i).getKey().partition();
            next[i] = entries.get(i).getValue();
        }
        return inOwnTransaction(dataSource, "altering", connection -> {
            try (PreparedStatement ps = connection.prepareStatement("select pgque.sink_set_offsets(?, ?, ?, ?)")) {
                ps.setString(1, connector);
                ps.setArray(2, array(connection, "text", topics));
                ps.setArray(3, array(connection, "int4", partitions));
                ps.setArray(4, array(connection, "int8", next));
                return single(ps);
            }
        });
    }

    /**
     * Forgets every stored offset of this connector, in a transaction of its own.
     *
     * @return how many partitions were forgotten
     * @throws WriteFailedException carrying the SQLSTATE
     */
    public int reset(DataSource dataSource) {
        return inOwnTransaction(dataSource, "resetting", connection -> {
            try (PreparedStatement ps = connection.prepareStatement("select pgque.sink_reset_offsets(?)")) {
                ps.setString(1, connector);
                return single(ps);
            }
        });
    }

    @FunctionalInterface
    private interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    private <T> T inOwnTransaction(DataSource dataSource, String doing, Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            T result = work.run(connection);
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            return result;
        } catch (SQLException e) {
            throw new WriteFailedException(doing + " the stored Kafka offsets of connector '" + connector + "'", e);
        }
    }

    private static int single(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static Array array(Connection connection, String type, Object[] values) throws SQLException {
        return connection.createArrayOf(type, values);
    }
}

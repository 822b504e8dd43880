/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The rest of one slot's open batch, read a chunk at a time without ever holding all of it:
 * a holdable server-side cursor ({@code DECLARE ... WITH HOLD}) on a connection of its own.
 *
 * <p>Why a holdable cursor, and not a query per chunk: the event tables have no index on the
 * event id, only on the transaction id, so every read of a batch scans the batch's whole tick
 * window, whatever its {@code after} and {@code max}; chunk-by-chunk queries would cost one
 * scan per chunk, quadratic in the batch size (a batch of an hour holds the hour). The cursor
 * is declared in a transaction of its own that runs {@code read_batch_partitioned} once (one
 * scan, which also checks and renews the lease), or the receive that opens the batch (then the
 * batch costs one scan in all; see {@link SlotConsumer#receiveThroughCursor}), and commits at
 * once: PostgreSQL then keeps the
 * result in the session (spilling to a temporary file past {@code work_mem}), and each
 * {@link #next} is a plain {@code FETCH} outside any transaction. So nothing stays open that
 * would hold back vacuum or the slot's lease row, and lease renewals and acks go on through the
 * caller's other connections as usual. The price is one connection pinned while the batch
 * streams; {@link #close} gives it back.
 *
 * <p>The cursor sees the batch as it was when opened; it does not check the lease again.
 * Ownership is checked where it matters, at the ack (see {@link SlotConsumer#ack(int, long)}).
 * Not thread-safe.
 */
public final class BatchCursor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BatchCursor.class);
    private static final AtomicLong NAMES = new AtomicLong();
    /** The bound on opening a cursor: one scan of a batch's whole window, however large. */
    static final Duration OPEN_BOUND = Duration.ofMinutes(15);
    /** The batch id of a cursor whose query opens the batch: known from its first event. */
    static final long UNKNOWN = Long.MIN_VALUE;

    private final Connection connection;
    private final String name;
    private long batchId;
    private final String what;
    private boolean exhausted;
    private boolean closed;

    private BatchCursor(Connection connection, String name, long batchId, String what) {
        this.connection = connection;
        this.name = name;
        this.batchId = batchId;
        this.what = what;
    }

    /**
     * Declares the cursor over the events of the slot's open batch after {@code afterMsgId}; the
     * one scan of the batch's window happens here.
     *
     * @param declare the {@code read_batch_partitioned} call and its parameters
     */
    static BatchCursor open(DataSource connections, long batchId, String what, String declare, Object... params) {
        return declare(connections, batchId, what, null, declare, params);
    }

    /**
     * Declares the cursor over the query {@code declare}, which may open the batch itself (then
     * {@code batchId} is {@link #UNKNOWN} and taken from the first event read), after running
     * {@code first} in the same transaction when there is one.
     */
    static BatchCursor declare(DataSource connections, long batchId, String what, SqlWork<?> first,
                               String declare, Object... params) {
        // A name of its own per cursor: a connection whose CLOSE failed can never hand a stale
        // cursor of the same name to the next user.
        String name = "pgque_batch_" + NAMES.incrementAndGet();
        Connection connection = null;
        try {
            connection = connections.getConnection();
            connection.setAutoCommit(first == null);
            // The one scan of the whole window happens here, when the commit keeps the cursor's
            // result: a batch built while the ticker stood still can take longer than the socket
            // timeout a pool gives every call (PostgreSQL's statement_timeout does not cover that
            // commit). This statement alone gets a bound of its own; the chunks' FETCHes are
            // bounded as usual.
            int poolBound = connection.getNetworkTimeout();
            connection.setNetworkTimeout(Runnable::run, (int) OPEN_BOUND.toMillis());
            if (first != null) {
                first.run(connection);
            }
            try (PreparedStatement ps = connection.prepareStatement(
                    "declare " + name + " no scroll cursor with hold for " + declare)) {
                for (int i = 0; i < params.length; i++) {
                    ps.setObject(i + 1, params[i]);
                }
                ps.execute();
            }
            if (first != null) {
                connection.commit();
                connection.setAutoCommit(true);
            }
            connection.setNetworkTimeout(Runnable::run, poolBound);
            return new BatchCursor(connection, name, batchId, what);
        } catch (SQLException e) {
            rollbackAndClose(connection, first != null);
            throw SqlErrors.map(what, e);
        } catch (RuntimeException e) {
            rollbackAndClose(connection, first != null);
            throw e;
        }
    }

    /** The batch read. */
    public long batchId() {
        return batchId;
    }

    /**
     * The next at most {@code max} events, in event-id order; empty once the batch is read to
     * its end (the cursor then is closed and its connection given back).
     */
    public List<Message> next(int max) {
        WholeBatch.checkPageSize(max);
        if (exhausted) {
            return List.of();
        }
        List<Message> chunk = new ArrayList<>(Math.min(max, 1024));
        try (PreparedStatement ps = connection.prepareStatement("fetch forward " + max + " from " + name);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Message message = Rows.message(rs);
                if (batchId == UNKNOWN) {
                    batchId = message.batchId();
                }
                if (message.batchId() != batchId) {
                    throw new IllegalStateException(what + ": the cursor returned an event of batch "
                            + message.batchId() + " instead of batch " + batchId);
                }
                chunk.add(message);
            }
        } catch (SQLException e) {
            throw SqlErrors.map(what, e);
        }
        if (chunk.size() < max) {
            exhausted = true;
            close();
        }
        return chunk;
    }

    /** True once {@link #next} reached the end of the batch. */
    public boolean exhausted() {
        return exhausted;
    }

    /** Drops the server's copy of the rest and gives the connection back. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (Statement s = connection.createStatement()) {
            s.execute("close " + name);
        } catch (SQLException e) {
            log.debug("Closing cursor {} ({}) failed; the connection goes back to the pool regardless", name, what, e);
        }
        closeQuietly(connection);
    }

    private static void rollbackAndClose(Connection connection, boolean inTransaction) {
        if (connection != null && inTransaction) {
            try {
                connection.rollback();
            } catch (SQLException e) {
                log.debug("Rolling back a failed cursor declaration failed; the pool resets the connection", e);
            }
        }
        closeQuietly(connection);
    }

    private static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException e) {
            log.debug("Returning a connection to the pool failed", e);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import io.pgque.client.PgQueException;
import io.pgque.connect.sink.errors.BadRecordException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One attempt at writing a put's events: one connection, one transaction for every queue, one
 * statement per chunk. When the database refuses the content of some event, the transaction is
 * rolled back and written again with each chunk under a savepoint, halving the chunks that fail
 * (see {@link Bisector}) until only the refused events are left out. Commits before returning.
 */
public final class PutTransaction {

    private static final Logger log = LoggerFactory.getLogger(PutTransaction.class);

    private final DataSource dataSource;
    private final EventSender sender;

    public PutTransaction(DataSource dataSource, EventSender sender) {
        this.dataSource = dataSource;
        this.sender = sender;
    }

    /** Writes {@code batches} and commits; see {@link #write(QueueBatches, boolean, BeforeCommit)}. */
    public List<RejectedEvent> write(QueueBatches batches, boolean canReport) {
        return write(batches, canReport, BeforeCommit.NOTHING);
    }

    /**
     * Writes {@code batches}, runs {@code beforeCommit} in the same transaction, and commits.
     * An empty {@code batches} still runs {@code beforeCommit} and commits.
     *
     * @param canReport whether refused events can be reported; when not, a refused event rolls
     *                  the whole transaction back and fails with its coordinates instead
     * @return the events the database refused (empty in the common case), in input order
     * @throws BadRecordException when an event was refused and {@code canReport} is false
     * @throws PgQueException or {@link WriteFailedException} for anything else: {@link FailureKind}
     *         says whether to retry; and whatever {@code beforeCommit} throws
     */
    public List<RejectedEvent> write(QueueBatches batches, boolean canReport, BeforeCommit beforeCommit) {
        Connection connection = connect();
        try {
            List<RejectedEvent> rejected = sendAll(connection, batches) ? List.of() : narrowDown(connection, batches, canReport);
            beforeCommit.run(connection, rejected);
            commit(connection);
            sender.metrics().transactionCommitted(batches.eventCount() - rejected.size());
            return rejected;
        } catch (RuntimeException | Error e) {
            sender.metrics().transactionRolledBack();
            rollbackQuietly(connection, e);
            throw e;
        } finally {
            closeQuietly(connection);
        }
    }

    /** One statement per chunk. False when the database refused some event's content; the transaction is then rolled back. */
    private boolean sendAll(Connection connection, QueueBatches batches) {
        try {
            for (QueueBatches.Chunk chunk : batches.chunks()) {
                sender.send(connection, chunk);
            }
            return true;
        } catch (PgQueException e) {
            if (FailureKind.of(e) != FailureKind.RECORD) {
                throw e;
            }
            log.warn("The database refused part of a batch of {} events ({}); writing it again with "
                    + "savepoints to find the refused events", batches.eventCount(), reason(e));
            rollback(connection);
            sender.metrics().transactionRolledBack();
            return false;
        }
    }

    /** Writes every chunk again, each try under a savepoint, leaving out only the refused events. */
    private List<RejectedEvent> narrowDown(Connection connection, QueueBatches batches, boolean canReport) {
        List<RejectedEvent> rejected = new ArrayList<>();
        for (QueueBatches.Chunk chunk : batches.chunks()) {
            Bisector bisector = new Bisector(events -> isolated(connection, chunk.queue(), events));
            rejected.addAll(bisector.writeAll(chunk.events()));
        }
        if (!rejected.isEmpty() && !canReport) {
            RejectedEvent first = rejected.get(0);
            throw new BadRecordException(first.event().record(), "the database refused the event: " + first.reason()
                    + (rejected.size() > 1 ? " (and " + (rejected.size() - 1) + " more refused events in this batch)" : ""));
        }
        return rejected;
    }

    private Optional<String> isolated(Connection connection, String queue, List<PendingEvent> events) {
        Savepoint savepoint = savepoint(connection);
        try {
            sender.send(connection, new QueueBatches.Chunk(queue, events));
        } catch (PgQueException e) {
            if (FailureKind.of(e) != FailureKind.RECORD) {
                throw e;
            }
            rollback(connection, savepoint);
            return Optional.of(reason(e));
        }
        release(connection, savepoint);
        return Optional.empty();
    }

    // The database's own words and SQLSTATE, without the client's "send n events to ..." prefix.
    private static String reason(PgQueException e) {
        Throwable cause = e.getCause() instanceof SQLException ? e.getCause() : e;
        return cause.getMessage() + " (SQLSTATE " + e.sqlState() + ")";
    }

    private Connection connect() {
        try {
            Connection connection = dataSource.getConnection();
            if (connection.getAutoCommit()) {
                connection.setAutoCommit(false);
            }
            return connection;
        } catch (SQLException e) {
            throw new WriteFailedException("getting a database connection", e);
        }
    }

    private static void commit(Connection connection) {
        try {
            connection.commit();
        } catch (SQLException e) {
            throw new WriteFailedException("commit", e);
        }
    }

    private static void rollback(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            throw new WriteFailedException("rollback", e);
        }
    }

    private static Savepoint savepoint(Connection connection) {
        try {
            return connection.setSavepoint();
        } catch (SQLException e) {
            throw new WriteFailedException("savepoint", e);
        }
    }

    private static void rollback(Connection connection, Savepoint savepoint) {
        try {
            connection.rollback(savepoint);
        } catch (SQLException e) {
            throw new WriteFailedException("rollback to savepoint", e);
        }
    }

    private static void release(Connection connection, Savepoint savepoint) {
        try {
            connection.releaseSavepoint(savepoint);
        } catch (SQLException e) {
            throw new WriteFailedException("release savepoint", e);
        }
    }

    // After the outcome is decided, closing only hands the connection back to the pool (which
    // discards a broken one); a failure there must not turn a committed write into a retry.
    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            log.debug("Returning a connection to the pool failed", e);
        }
    }

    private static void rollbackQuietly(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailure) {
            failure.addSuppressed(rollbackFailure);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Entry point of the client: a thin, typed layer over the engine's SQL functions in schema
 * {@code pgque}. Payloads are text and pass through untouched.
 *
 * <p>Two ways to run the same operations:
 * <ul>
 *   <li>{@link #using(DataSource)}: every call takes its own connection and commits its own
 *       transaction. Use it for ticking, maintenance, and anything that need not be atomic with
 *       other work.</li>
 *   <li>{@link #using(Connection)}: every call runs inside the caller's open transaction on that
 *       connection; the client never commits, rolls back or closes it. Use it to make a send, or a
 *       receive plus side effects plus ack, atomic with the caller's own writes. After any error
 *       the caller must roll back.</li>
 * </ul>
 * {@link #inTransaction} combines both: one pooled connection, one transaction, committed when
 * the work returns.
 *
 * <p>Instances are immutable and thread-safe as far as the underlying connections are; a
 * connection-bound instance must not be used from two threads at once.
 *
 * <pre>{@code
 * PgQue pq = PgQue.using(dataSource);
 * pq.queues().create("orders");
 * pq.consumer().subscribe("orders", "billing");
 * pq.producer().send("orders", Event.of("order.created", json).withPartitionKey(customerId));
 * // ... ticker runs (pq.operations().ticker()) ...
 * pq.consumer().receive("orders", "billing").ifPresent(batch -> {
 *     handle(batch.messages());
 *     pq.consumer().ack(batch.batchId());
 * });
 * }</pre>
 */
public final class PgQue {

    /** Work to run inside one transaction; see {@link #inTransaction}. */
    @FunctionalInterface
    public interface TransactionWork<T> {
        /**
         * @param tx         the client bound to the transaction
         * @param connection the transaction's connection, for the caller's own statements; do not
         *                   commit, roll back or close it
         */
        T run(PgQue tx, Connection connection) throws SQLException;
    }

    private final Connections db;
    /** What the installed engine can do, read once for every consumer of this client. */
    private final EngineCapabilities.Known engine = new EngineCapabilities.Known();

    private PgQue(Connections db) {
        this.db = db;
    }

    /** A client whose every call runs in its own transaction on a connection from {@code dataSource}. */
    public static PgQue using(DataSource dataSource) {
        return new PgQue(Connections.ownTransactions(dataSource));
    }

    /**
     * A client whose every call runs on {@code connection} inside the caller's transaction. For
     * atomicity the connection should have auto-commit off; with auto-commit on each statement
     * commits by itself.
     */
    public static PgQue using(Connection connection) {
        return new PgQue(Connections.callerTransaction(connection));
    }

    /**
     * Runs {@code work} in one transaction and returns its result: committed when it returns,
     * rolled back when it throws. On a connection-bound client the work simply joins the caller's
     * transaction.
     *
     * <p>Receive, side effects and ack in one call give exactly-once processing within this
     * database: if anything fails the batch is not acked and is delivered again.
     */
    public <T> T inTransaction(TransactionWork<T> work) {
        return db.run("transaction", c -> work.run(PgQue.using(c), c));
    }

    /** Whether every call commits on a connection of its own (built with {@link #using(DataSource)}). */
    boolean commitsEachCall() {
        return db instanceof Connections.OwnTransactions;
    }

    /** Creating, configuring, dropping and inspecting queues. */
    public Queues queues() {
        return new Queues(db);
    }

    /** Sending events. */
    public Producer producer() {
        return new Producer(db);
    }

    /** Subscribing and consuming whole batches. */
    public Consumer consumer() {
        return new Consumer(db);
    }

    /** Ticking, maintenance, engine version. */
    public Operations operations() {
        return new Operations(db);
    }

    /**
     * A worker's handle on the partitioned consumer {@code consumer} of {@code queue} with
     * {@code slots} slots. The handle claims leases under {@code workerId} and a secret of its
     * own, which it never shows: the engine (partition_slot_status, its error messages) shows
     * only {@code workerId}, and a lease this handle holds is held against every other handle,
     * one with the same worker id included. A restarted worker therefore takes its slots back
     * once its old leases expire.
     *
     * @param workerId the worker's name, unique among live workers, e.g. host name plus task id;
     *                 without a '|'
     */
    public SlotConsumer slotConsumer(String queue, String consumer, int slots, String workerId) {
        return new SlotConsumer(db, queue, consumer, slots, workerId, engine);
    }

    /** Resizing (changing N of) the partitioned consumer {@code consumer} of {@code queue}. */
    public SlotResize slotResize(String queue, String consumer) {
        return new SlotResize(db, queue, consumer);
    }

    /**
     * Worker {@code subconsumer} of the cooperative consumer {@code consumer} of {@code queue}
     * (experimental): the group's workers share one cursor, each batch going to one of them.
     * Never takes a silent sibling's batch until given a dead interval
     * ({@link CoopConsumer#withDeadInterval}).
     */
    public CoopConsumer coopConsumer(String queue, String consumer, String subconsumer) {
        return new CoopConsumer(db, queue, consumer, subconsumer, null);
    }

    /** The Kafka offsets the sink connector {@code connector} stores beside the events it writes. */
    public SinkOffsets sinkOffsets(String connector) {
        return new SinkOffsets(db, connector);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * One worker of a cooperative consumer (experimental): the workers ("subconsumers") of logical
 * consumer {@code consumer} share its cursor, and each batch -- one tick window -- goes to exactly
 * one of them, so the pool splits the stream without reading anything twice. There is no order
 * between batches of different workers, so events with the same key may be processed by two
 * workers at once: for one worker per key use {@link PerKeyExclusion} (no order) or a
 * {@link SlotConsumer} (per-key order).
 *
 * <p>A worker that holds a batch and stays silent for longer than the <em>dead interval</em> may
 * lose it to a sibling ({@link #withDeadInterval}); the sibling gets it under a new batch id, so
 * the silent worker's late {@link #ack} fails with {@link BatchNotFoundException} -- roll its
 * transaction back. A long handler keeps its batch by running {@link #heartbeat} meanwhile.
 *
 * <p>Open batches in a transaction of their own (a client built with
 * {@link PgQue#using(javax.sql.DataSource)} does): handing out a batch locks the group's cursor
 * row until the transaction ends, so receiving inside a long processing transaction would make
 * every sibling wait for it. Processing plus {@link #ack} in one transaction is what makes side
 * effects in this database exactly-once.
 *
 * <p>Holds only its parameters; safe to share.
 */
public final class CoopConsumer {

    private static final String RECEIVE = "select " + Rows.MESSAGE_COLUMNS
            + " from pgque.receive_coop(?, ?, ?, ?, ?::interval) m";
    private static final String READ_BATCH =
            "select " + Rows.MESSAGE_COLUMNS + " from pgque.read_batch(?, ?, ?) m";

    private final Connections db;
    private final String queue;
    private final String consumer;
    private final String subconsumer;
    private final Duration deadInterval;
    private final BatchReads reads;

    CoopConsumer(Connections db, String queue, String consumer, String subconsumer, Duration deadInterval) {
        this.db = db;
        this.queue = Objects.requireNonNull(queue, "queue");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.subconsumer = Objects.requireNonNull(subconsumer, "subconsumer");
        if (deadInterval != null && (deadInterval.isNegative() || deadInterval.isZero())) {
            throw new IllegalArgumentException("dead interval must be positive, was " + deadInterval);
        }
        this.deadInterval = deadInterval;
        String dead = deadInterval == null ? null : Intervals.text(deadInterval);
        this.reads = new BatchReads(db, new BatchReads.Statements() {
            @Override
            public BatchReads.Call receive(Connection c, int max) {
                return new BatchReads.Call(RECEIVE, queue, consumer, subconsumer, max, dead);
            }

            @Override
            public BatchReads.Call readOn(long batchId, long afterMsgId) {
                return new BatchReads.Call(READ_BATCH, batchId, afterMsgId, WholeBatch.ALL);
            }

            @Override
            public BatchReads.Call ack(long batchId) {
                return new BatchReads.Call("select pgque.ack(?)", batchId);
            }

            @Override
            public BatchReads.Call deadLetter(long msgId, String reason) {
                return new BatchReads.Call("select pgque.dead_letter_subconsumer(?, ?, ?, ?, ?)", queue, consumer,
                        subconsumer, msgId, reason);
            }

            @Override
            public String what(String action) {
                return CoopConsumer.this.what(action);
            }
        });
    }

    /**
     * The same worker, taking over a sibling's batch when that sibling has been silent (no
     * receive, no heartbeat) for longer than {@code deadInterval}; null never takes over.
     */
    public CoopConsumer withDeadInterval(Duration deadInterval) {
        return new CoopConsumer(db, queue, consumer, subconsumer, deadInterval);
    }

    public String queue() {
        return queue;
    }

    public String consumer() {
        return consumer;
    }

    public String subconsumer() {
        return subconsumer;
    }

    /** The dead interval, or null when this worker never takes a sibling's batch. */
    public Duration deadInterval() {
        return deadInterval;
    }

    /** {@link #register(boolean)} refusing to convert an existing plain consumer. */
    public boolean register() {
        return register(false);
    }

    /**
     * Registers this worker, creating the logical consumer at the queue's newest tick if needed.
     * Receiving registers too; registering first fixes where a new group starts.
     *
     * @param convertNormal turn an existing plain consumer of that name into the group's cursor
     *                      (refused while it has an open batch); false refuses to touch it
     * @return true if anything was created or converted
     */
    public boolean register(boolean convertNormal) {
        return db.run(what("register"), c -> Sql.count(c, "select pgque.register_subconsumer(?, ?, ?, ?)",
                queue, consumer, subconsumer, convertNormal) == 1);
    }

    /**
     * Removes this worker; refused (SQLSTATE {@code 55000}) while it holds a batch. When the
     * last worker leaves, the logical consumer is a plain consumer again, at the group's position.
     *
     * @return true if the worker was registered
     */
    public boolean unregister() {
        return unregister(0);
    }

    /**
     * Removes this worker even while it holds a batch: every event of that batch goes through
     * the nack policy (retried in 60 seconds, or dead-lettered once retried {@code max_retries}
     * times), so nothing is lost; the batch id is dead afterwards.
     */
    public boolean unregisterNackingOpenBatch() {
        return unregister(1);
    }

    private boolean unregister(int batchHandling) {
        return db.run(what("unregister"), c -> Sql.count(c, "select pgque.unregister_subconsumer(?, ?, ?, ?)",
                queue, consumer, subconsumer, batchHandling) == 1);
    }

    /** {@link #receive(int)} with pages of {@value Consumer#DEFAULT_PAGE_SIZE}. */
    public Optional<Batch> receive() {
        return receive(Consumer.DEFAULT_PAGE_SIZE);
    }

    /**
     * This worker's batch, all of it: the one it holds, else a stale sibling's (with a dead
     * interval), else the group's next tick window. Until acked, the same batch comes back.
     *
     * @return the batch, or empty when no window with events is ready
     */
    public Optional<Batch> receive(int pageSize) {
        return reads.receive(pageSize);
    }

    /**
     * The first at most {@code max} events of this worker's batch (taken as {@link #receive(int)}
     * takes it), for a reader that streams a batch rather than holding it whole; the rest, when the
     * page is full, comes from {@link #openRest}.
     *
     * @return the page, or empty when no window with events is ready
     */
    public Optional<BatchPage> receivePage(int max) {
        return reads.receivePage(max);
    }

    /**
     * Opens a cursor over the events of batch {@code batchId} after event {@code afterMsgId}, on
     * a connection of {@code connections} that the cursor keeps until closed or read to its end
     * (see {@link BatchCursor}).
     *
     * @throws BatchNotFoundException if the batch is no longer open
     */
    public BatchCursor openRest(DataSource connections, long batchId, long afterMsgId) {
        return reads.openRest(connections, batchId, afterMsgId);
    }

    /**
     * Finishes the batch.
     *
     * @throws BatchNotFoundException if the batch is no longer this worker's: a sibling took it
     *                                over (roll back whatever was done for it) or it was acked
     */
    public void ack(long batchId) {
        if (!reads.ack(batchId)) {
            throw new BatchNotFoundException(what("ack batch " + batchId) + " failed: the batch is not open"
                    + " (taken over by a sibling after the dead interval, or already acked)", null, null);
        }
    }

    /** Nacks a message of this worker's open batch; see {@link Consumer#nack(long, Message, Duration, String)}. */
    public void nack(Message message, Duration retryAfter, String reason) {
        new Consumer(db).nack(message, retryAfter, reason);
    }

    /**
     * Moves one event of this worker's open batch to the queue's dead letters now, whatever its
     * retry count, with {@code reason}: for an event no retry can fix. The batch stays open; ack
     * it as usual. Repeating it is a no-op.
     *
     * @throws BatchNotFoundException if the worker holds no batch (a sibling took it over)
     */
    public void deadLetter(long msgId, String reason) {
        reads.deadLetter(msgId, reason);
    }

    /**
     * Marks this worker alive now, so that no sibling takes its batch for another dead interval.
     *
     * @return false if the worker is not registered
     */
    public boolean touch() {
        return db.run(what("heartbeat"), c -> Sql.count(c, "select pgque.touch_subconsumer(?, ?, ?)",
                queue, consumer, subconsumer) == 1);
    }

    /**
     * Calls {@link #touch} every {@code every} from a background thread until closed: wrap a long
     * handler in it. Needs a client that commits each call on its own connection
     * ({@link PgQue#using(javax.sql.DataSource)}): a heartbeat inside the worker's own open
     * transaction would not be seen by its siblings.
     */
    public Heartbeat heartbeat(Duration every) {
        if (!commitsEachCall()) {
            throw new IllegalStateException("a heartbeat needs a client built with PgQue.using(DataSource):"
                    + " each touch must commit on a connection of its own");
        }
        return Heartbeat.start(this::touch, every, "pgque-heartbeat-" + queue + "-" + consumer + "." + subconsumer);
    }

    boolean commitsEachCall() {
        return db instanceof Connections.OwnTransactions;
    }

    private String what(String action) {
        return action + " as subconsumer '" + subconsumer + "' of cooperative consumer '" + consumer
                + "' on queue '" + queue + "'";
    }
}

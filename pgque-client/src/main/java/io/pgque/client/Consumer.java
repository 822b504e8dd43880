/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Connection;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Subscribing to queues and consuming whole batches; needs the {@code pgque_reader} role.
 *
 * <p>Delivery is at least once: a batch is delivered again until it is acked. For exactly-once
 * side effects in the same database, receive, write the side effects and ack in one transaction
 * ({@link PgQue#inTransaction}).
 *
 * <p>A consumer name is one cursor: two workers using the same name on the same queue process
 * the same batch. Give parallel workers their own names, or use a {@link SlotConsumer}.
 */
public final class Consumer {

    /** Page size of {@link #receive(String, String)}. */
    public static final int DEFAULT_PAGE_SIZE = 1000;

    private static final String RECEIVE =
            "select " + Rows.MESSAGE_COLUMNS + " from pgque.receive(?, ?, ?) m";
    private static final String READ_BATCH =
            "select " + Rows.MESSAGE_COLUMNS + " from pgque.read_batch(?, ?, ?) m";
    private static final String NACK = "select pgque.nack(?, row(?, ?, null, null, null, null, null, "
            + "null, null, null)::pgque.message, " + Intervals.PARAM + ", ?)";
    private static final String NACK_DEFAULTS = "select pgque.nack(?, row(?, ?, null, null, null, "
            + "null, null, null, null, null)::pgque.message)";

    private static final String ACK = "select pgque.ack(?)";
    private final Connections db;

    Consumer(Connections db) {
        this.db = db;
    }

    /**
     * Subscribes {@code consumer} to {@code queue}. The subscription starts at the queue's latest
     * tick: events already ticked before it existed are not delivered to it.
     *
     * @return true if newly subscribed, false if it already was
     */
    public boolean subscribe(String queue, String consumer) {
        return db.run("subscribe '" + consumer + "' to queue '" + queue + "'",
                c -> Sql.count(c, "select pgque.subscribe(?, ?)", queue, consumer) == 1);
    }

    /**
     * Ends the subscription, dropping its position and pending retries.
     *
     * @return true if it existed
     */
    public boolean unsubscribe(String queue, String consumer) {
        return db.run("unsubscribe '" + consumer + "' from queue '" + queue + "'",
                c -> Sql.count(c, "select pgque.unsubscribe(?, ?)", queue, consumer) == 1);
    }

    /** {@link #receive(String, String, int)} with pages of {@value #DEFAULT_PAGE_SIZE}. */
    public Optional<Batch> receive(String queue, String consumer) {
        return receive(queue, consumer, DEFAULT_PAGE_SIZE);
    }

    /**
     * Receives the consumer's next batch, <em>all</em> of it: the first {@code pageSize} events
     * come with the receive, the rest (if any) in one more query, {@code pageSize} rows per round
     * trip (the page size bounds round-trip size, not the batch). Until the
     * batch is acked, receiving again returns the same batch.
     *
     * @return the batch, or empty when no batch with events is ready (the ticker has not ticked
     *         since the last ack, or the new batch had no events for this consumer)
     */
    public Optional<Batch> receive(String queue, String consumer, int pageSize) {
        return reads(queue, consumer).receive(pageSize);
    }

    /**
     * The batch reads of plain consumer {@code consumer} (a plain ack names the batch alone: both
     * may be null for it).
     */
    private BatchReads reads(String queue, String consumer) {
        return new BatchReads(db, new BatchReads.Statements() {
            @Override
            public BatchReads.Call receive(Connection c, int max) {
                return new BatchReads.Call(RECEIVE, queue, consumer, max);
            }

            @Override
            public BatchReads.Call readOn(long batchId, long afterMsgId) {
                return new BatchReads.Call(READ_BATCH, batchId, afterMsgId, WholeBatch.ALL);
            }

            @Override
            public BatchReads.Call ack(long batchId) {
                return new BatchReads.Call(ACK, batchId);
            }

            @Override
            public String what(String action) {
                return action.equals("receive") ? "receive from queue '" + queue + "' as '" + consumer + "'"
                        : action;
            }
        });
    }

    /**
     * Finishes the batch: the consumer moves past all of its events. Messages nacked in it come
     * back later as retries.
     *
     * @throws BatchNotFoundException if the batch is unknown or was already finished
     */
    public void ack(long batchId) {
        if (!reads(null, null).ack(batchId)) {
            throw new BatchNotFoundException("ack batch " + batchId
                    + " failed: no such open batch (unknown, or already acked)", null, null);
        }
    }

    /** Acks the batch; see {@link #ack(long)}. */
    public void ack(Batch batch) {
        ack(batch.batchId());
    }

    /**
     * Asks for {@code message} to be delivered again after {@code retryAfter}, or moves it to the
     * dead letter table once it has been retried the queue's {@code max_retries} times. The batch
     * stays open: ack it afterwards (the retry is delivered in a later batch).
     *
     * @param reason recorded with the dead letter; may be null
     * @throws MessageNotFoundException if the message is not in the open batch {@code batchId}
     */
    public void nack(long batchId, Message message, Duration retryAfter, String reason) {
        Objects.requireNonNull(message, "message");
        double seconds = Intervals.seconds(retryAfter);
        db.run("nack message " + message.msgId() + " in batch " + batchId,
                c -> Sql.count(c, NACK, batchId, message.msgId(), message.batchId(), seconds, reason));
    }

    /** {@link #nack(long, Message, Duration, String)} in the message's own batch. */
    public void nack(Message message, Duration retryAfter, String reason) {
        nack(message.batchId(), message, retryAfter, reason);
    }

    /** Nack with the engine's defaults: retry after 60 seconds, no reason. */
    public void nack(Message message) {
        Objects.requireNonNull(message, "message");
        long batchId = message.batchId();
        db.run("nack message " + message.msgId() + " in batch " + batchId,
                c -> Sql.count(c, NACK_DEFAULTS, batchId, message.msgId(), batchId));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The "Tier A" recipe (experimental): at most one worker handles a key at any moment, with no
 * order and no slots -- for work like "bring tenant T's schema to the latest version", where a
 * handler converges to a desired state and running it again is harmless.
 *
 * <p>Per batch of a {@link CoopConsumer}: the batch is opened in a short transaction of its own,
 * then, in <em>one</em> processing transaction, each event's key is locked with
 * {@code pg_try_advisory_xact_lock(hashtextextended(namespace || key, 0))}:
 * <ul>
 *   <li>acquired: the handler runs, inside that transaction;</li>
 *   <li>contended: another worker is handling the key right now, so the event is dropped (acked
 *       with the batch, not retried) -- that worker's run converges the same state;</li>
 *   <li>a key seen earlier in the same batch is dropped the same way (advisory locks are
 *       re-entrant within a session, and the earlier run already converged).</li>
 * </ul>
 * Then the batch is acked in the same transaction, which releases the locks at commit. If the
 * handler throws, everything rolls back and the batch comes again. An event without a key is
 * handled without a lock.
 *
 * <p>Dropping is only right for idempotent, converging handlers; events that must each be
 * applied need per-key order: use a {@link SlotConsumer}. The lock space is database-wide, hence
 * the namespace (e.g. {@code "migrate:"}). The key must name the effect, not just the entity,
 * when producers deduplicate with {@code send_idem}: see the key-scope hazard in docs/slots.md.
 */
public final class PerKeyExclusion {

    /** Runs for one event, inside the worker's processing transaction on {@code tx}. */
    @FunctionalInterface
    public interface Handler {
        void handle(Connection tx, Message message) throws SQLException;
    }

    /**
     * What happened to one batch.
     *
     * @param batchId the batch, acked
     * @param handled events whose handler ran
     * @param dropped events acked without running: another worker was handling their key
     */
    public record Outcome(long batchId, int handled, int dropped) {
    }

    private static final String TRY_LOCK = "select pg_try_advisory_xact_lock(hashtextextended(?, 0))";

    private final PgQue client;
    private final CoopConsumer worker;
    private final String namespace;
    private final Function<Message, String> keyOf;
    private final Duration heartbeatEvery;

    /**
     * @param client         a client that commits each call on its own
     *                       ({@link PgQue#using(javax.sql.DataSource)})
     * @param worker         the cooperative worker receiving batches (bound to the same database)
     * @param namespace      prefix of every lock key, e.g. {@code "migrate:"}
     * @param keyOf          the key of an event, e.g. {@link Message#partitionKey()}
     * @param heartbeatEvery heartbeat period while a batch is processed, or null for none
     */
    public PerKeyExclusion(PgQue client, CoopConsumer worker, String namespace, Function<Message, String> keyOf,
                           Duration heartbeatEvery) {
        this.client = Objects.requireNonNull(client, "client");
        this.worker = Objects.requireNonNull(worker, "worker");
        // Receiving inside the processing transaction would hold the group's cursor row for the
        // whole batch and serialise the pool.
        if (!client.commitsEachCall() || !worker.commitsEachCall()) {
            throw new IllegalArgumentException("PerKeyExclusion needs a client and a worker built with"
                    + " PgQue.using(DataSource): batches are opened in a transaction of their own");
        }
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.keyOf = Objects.requireNonNull(keyOf, "keyOf");
        this.heartbeatEvery = heartbeatEvery;
    }

    /** The lock key of an event's key: namespace then key. */
    public String lockKey(String key) {
        return namespace + key;
    }

    /**
     * Receives this worker's next batch and processes it as described above.
     *
     * @return what happened, or empty when no batch was ready
     * @throws BatchNotFoundException if a sibling took the batch over meanwhile (the processing
     *                                transaction was rolled back)
     */
    public Optional<Outcome> processNext(Handler handler) {
        Objects.requireNonNull(handler, "handler");
        Optional<Batch> received = worker.receive();
        if (received.isEmpty()) {
            return Optional.empty();
        }
        Batch batch = received.get();
        try (Heartbeat beat = heartbeatEvery == null ? null : worker.heartbeat(heartbeatEvery)) {
            return Optional.of(client.inTransaction((tx, c) -> process(tx, c, batch, handler)));
        }
    }

    private Outcome process(PgQue tx, Connection c, Batch batch, Handler handler) throws SQLException {
        int handled = 0;
        int dropped = 0;
        for (Message m : batch.messages()) {
            String key = keyOf.apply(m);
            if (key == null || Sql.one(c, TRY_LOCK, rs -> rs.getBoolean(1), lockKey(key))) {
                handler.handle(c, m);
                handled++;
            } else {
                dropped++;
            }
        }
        tx.coopConsumer(worker.queue(), worker.consumer(), worker.subconsumer()).ack(batch.batchId());
        return new Outcome(batch.batchId(), handled, dropped);
    }
}

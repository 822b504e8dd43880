/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One worker on a partitioned consumer, as the engine's slot functions name it (queue, consumer,
 * slot, N, worker), with the catch-up window it reads with and what its engine can do: shared by
 * the worker's {@link SlotConsumer}, its {@link Slot} handles and its read-ahead.
 */
final class PartitionedWorker {

    static final String RECEIVE = "select " + Rows.MESSAGE_COLUMNS
            + " from pgque.receive_partitioned(?, ?, ?, ?, ?, ?) m";
    static final String RECEIVE_WINDOW = "select " + Rows.MESSAGE_COLUMNS
            + " from pgque.receive_partitioned(?, ?, ?, ?, ?, ?, ?) m";

    private static final SecureRandom RANDOM = new SecureRandom();

    final Connections db;
    final String queue;
    final String consumer;
    final int n;
    /** The worker's name: what the engine shows of its leases, and what messages and logs say. */
    final String workerId;
    /**
     * What the engine's slot functions are called with: the name, then '|' and a secret of this
     * handle's own. The engine shows only the part before the last '|' and holds the lease for
     * whoever presents the whole of it from the claiming login, so another reader that sees the
     * name cannot act as this worker. Never logged.
     */
    final String leaseId;
    /** Most queue events one batch may span when the slot is behind several ticks; null: one tick per batch. */
    final Long windowEvents;
    final EngineCapabilities.Known engine;

    PartitionedWorker(Connections db, String queue, String consumer, int n, String workerId, Long windowEvents,
                      EngineCapabilities.Known engine) {
        this(db, queue, consumer, n, workerId, newLeaseId(workerId), windowEvents, engine);
    }

    private PartitionedWorker(Connections db, String queue, String consumer, int n, String workerId, String leaseId,
                              Long windowEvents, EngineCapabilities.Known engine) {
        this.db = db;
        this.queue = Objects.requireNonNull(queue, "queue");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.workerId = Objects.requireNonNull(workerId, "workerId");
        this.leaseId = leaseId;
        if (n < 1) {
            throw new IllegalArgumentException("slot count must be at least 1, was " + n);
        }
        this.n = n;
        this.windowEvents = windowEvents;
        this.engine = engine;
    }

    PartitionedWorker catchingUp(long events) {
        if (events < 1) {
            throw new IllegalArgumentException("windowEvents must be at least 1, was " + events);
        }
        return new PartitionedWorker(db, queue, consumer, n, workerId, leaseId, events, engine);
    }

    private static String newLeaseId(String workerId) {
        byte[] secret = new byte[16];
        RANDOM.nextBytes(secret);
        return Objects.requireNonNull(workerId, "workerId") + "|" + HexFormat.of().formatHex(secret);
    }

    /** What the engine can do, read on first use (through a connection of its own then). */
    EngineCapabilities engine(String what) {
        EngineCapabilities known = engine.ifRead();
        return known != null ? known : db.run(what, engine::in);
    }

    /** The arguments every slot function starts with, then {@code more}. */
    Object[] args(int slot, Object... more) {
        Object[] all = new Object[5 + more.length];
        all[0] = queue;
        all[1] = consumer;
        all[2] = slot;
        all[3] = n;
        all[4] = leaseId;
        System.arraycopy(more, 0, all, 5, more.length);
        return all;
    }

    String what(String action) {
        return action + " of partitioned consumer '" + consumer + "' (" + n + " slots) on queue '" + queue
                + "' as worker '" + workerId + "'";
    }
}

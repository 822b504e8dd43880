/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ticker;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Wakes the lease loop when the queue ticks. The engine notifies channel {@code pgque_<queue>}
 * on every tick; this listens on a connection of its own and, on each notification, tells the
 * task's stream of batches, whose waiting readers then read their next batch at once instead of at the
 * end of their poll interval. Notifications are a hint, not a promise (they are lost while the
 * connection is down, and a tick by another database session may come before we listen), so
 * the poll interval stays the fallback and every (re)connect wakes the loop once. Once a
 * notification has come on the current connection the poller is told it hears the ticks, and
 * told again when that connection is lost; a quiet connection is checked every
 * {@link #PROBE_EVERY_MS}, so one that died without a word is found out too.
 */
public final class TickListener implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TickListener.class);
    /** How long one wait for notifications lasts; bounds how long close() waits for the thread. */
    private static final int WAIT_MS = 500;
    /** How long the connection may stay quiet before a query checks it is still there. */
    static final long PROBE_EVERY_MS = 5_000;

    private final DataSource dataSource;
    private final String queue;
    private final TickReceiver receiver;
    private final Duration backoff;
    private final Thread thread;
    private volatile boolean closed;

    private TickListener(DataSource dataSource, String queue, TickReceiver receiver, Duration backoff,
                         String threadName) {
        this.dataSource = dataSource;
        this.queue = queue;
        this.receiver = receiver;
        this.backoff = backoff;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /**
     * Starts listening for ticks of {@code queue} on a connection from {@code dataSource}, which
     * it holds for as long as it runs: give it a pool of its own.
     *
     * @param receiver told on the listener's thread of each tick and of whether ticks are heard
     * @param backoff  pause before connecting again after a failure
     */
    public static TickListener start(DataSource dataSource, String queue, TickReceiver receiver, Duration backoff,
                                     String threadName) {
        TickListener listener = new TickListener(dataSource, queue, receiver, backoff, threadName);
        listener.thread.start();
        return listener;
    }

    private void run() {
        boolean failing = false;
        while (!closed) {
            boolean heard = false;
            try (Connection c = dataSource.getConnection()) {
                PGConnection pg = c.unwrap(PGConnection.class);
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + pg.escapeIdentifier("pgque_" + queue));
                }
                if (failing) {
                    log.info("Listening for ticks of queue {} again", queue);
                    failing = false;
                }
                // Ticks made before LISTEN took effect were not heard: look once now.
                receiver.tickArrived();
                long quietSince = System.nanoTime();
                while (!closed) {
                    PGNotification[] ticks = pg.getNotifications(WAIT_MS);
                    if (ticks != null && ticks.length > 0) {
                        if (!heard) {
                            heard = true;
                            receiver.hearing(true);
                        }
                        receiver.tickArrived();
                        quietSince = System.nanoTime();
                    } else if (System.nanoTime() - quietSince > PROBE_EVERY_MS * 1_000_000) {
                        probe(c);
                        quietSince = System.nanoTime();
                    }
                }
                try (Statement s = c.createStatement()) {
                    s.execute("UNLISTEN *");
                }
            } catch (SQLException | RuntimeException e) {
                if (heard) {
                    // The slots may rest for want of ticks this connection no longer brings.
                    receiver.hearing(false);
                    receiver.tickArrived();
                }
                if (closed) {
                    break;
                }
                if (!failing) {
                    log.warn("Not listening for ticks of queue {} (slots fall back to polling); retrying in {} ms: {}",
                            queue, backoff.toMillis(), e.getMessage(), e);
                    failing = true;
                }
                pause();
            }
        }
    }

    /** A query on a quiet connection: one that died without a word fails here (at the pool's socket timeout at worst). */
    private static void probe(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        }
    }

    private void pause() {
        try {
            Thread.sleep(Math.max(backoff.toMillis(), 100)); // between reconnect attempts; close() interrupts it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    /** Stops listening; returns once the thread has ended (within about one wait). */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(WAIT_MS * 4L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("The tick listener of queue {} did not stop within {} ms", queue, WAIT_MS * 4L);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import io.pgque.client.PgQueException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plain clients of a queue beside the connectors, the way an application uses the engine: a
 * producer whose transactions send two events, and a consumer whose transactions receive and ack
 * a batch, each with a pause inside, so that transactions are open whenever something else (an
 * engine upgrade) commits. Every error they meet is kept, with its SQLSTATE, for the test to
 * judge; a failed transaction is retried, as a client would.
 */
final class SqlClients implements AutoCloseable {

    private static final long PAUSE_IN_TRANSACTION_MS = 20;

    private final DataSource db;
    private final String queue;
    private final AtomicBoolean producing = new AtomicBoolean(true);
    private final AtomicBoolean consuming = new AtomicBoolean(true);
    private final AtomicLong sent = new AtomicLong();
    private final Map<Long, Boolean> received = new ConcurrentHashMap<>();
    private final List<SQLException> errors = new CopyOnWriteArrayList<>();
    private final Thread producer;
    private final Thread consumer;

    SqlClients(DataSource db, String queue) throws SQLException {
        this.db = db;
        this.queue = queue;
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("select pgque.subscribe(?, 'app')")) {
            ps.setString(1, queue);
            ps.execute();
        }
        producer = new Thread(() -> loop(producing, this::produce), "sql-client-producer");
        consumer = new Thread(() -> loop(consuming, this::consume), "sql-client-consumer");
        producer.start();
        consumer.start();
    }

    private interface Step {
        void run(Connection c) throws SQLException;
    }

    private void loop(AtomicBoolean running, Step step) {
        while (running.get()) {
            try (Connection c = db.getConnection()) {
                c.setAutoCommit(false);
                while (running.get()) {
                    try {
                        step.run(c);
                        c.commit();
                    } catch (SQLException e) {
                        errors.add(e);
                        c.rollback();
                    }
                }
            } catch (SQLException e) {
                errors.add(e);
            }
        }
    }

    private void produce(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select pgque.send(?::text, 'app', ?::text)")) {
            for (int i = 0; i < 2; i++) {
                ps.setString(1, queue);
                ps.setString(2, "event");
                ps.execute();
                pause();
            }
        }
        sent.addAndGet(2);
    }

    private void consume(Connection c) throws SQLException {
        Long batch = null;
        try (PreparedStatement ps = c.prepareStatement("select msg_id, batch_id from pgque.receive(?, 'app', 1000)")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    received.put(rs.getLong(1), true);
                    batch = rs.getLong(2);
                }
            }
        }
        pause();
        if (batch != null) {
            try (PreparedStatement ack = c.prepareStatement("select pgque.ack(?)")) {
                ack.setLong(1, batch);
                ack.execute();
            }
        }
        pause();
    }

    private static void pause() {
        try {
            Thread.sleep(PAUSE_IN_TRANSACTION_MS); // keeps a transaction open across whatever commits meanwhile
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    long sent() {
        return sent.get();
    }

    long received() {
        return received.size();
    }

    /** The errors a client would not simply retry (PgQueException's transient SQLSTATEs aside). */
    List<String> errorsNotRetriable() {
        return errors.stream().filter(e -> !PgQueException.isTransientState(e.getSQLState()))
                .map(e -> e.getSQLState() + ": " + e.getMessage()).toList();
    }

    int errors() {
        return errors.size();
    }

    /** Stops the producer; the consumer goes on until {@link #close}. */
    void stopProducing() throws InterruptedException {
        producing.set(false);
        producer.join();
    }

    @Override
    public void close() {
        producing.set(false);
        consuming.set(false);
        try {
            producer.join();
            consumer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

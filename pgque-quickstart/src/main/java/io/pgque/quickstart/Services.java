/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the quickstart started, stopped in reverse order: the demo clients, then the Connect
 * worker (its tasks commit and release their slots while Kafka and PostgreSQL are still up), then
 * the broker, then PostgreSQL. Stopping is idempotent and may come from the main thread or the
 * shutdown hook, whichever is first.
 */
final class Services implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Services.class);

    private record Started(String name, AutoCloseable service) {
    }

    private final Deque<Started> started = new ArrayDeque<>();
    private boolean closed;

    /** Registers a started service; returns it, for chaining. Refused once stopping has begun. */
    synchronized <T extends AutoCloseable> T add(String name, T service) {
        if (closed) {
            closeQuietly(new Started(name, service));
            throw new IllegalStateException("shutting down; " + name + " was stopped right away");
        }
        started.push(new Started(name, service));
        return service;
    }

    synchronized boolean closing() {
        return closed;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        while (!started.isEmpty()) {
            closeQuietly(started.pop());
        }
    }

    private static void closeQuietly(Started s) {
        long t0 = System.nanoTime();
        try {
            s.service().close();
            LOG.info("Stopped {} ({} ms)", s.name(), (System.nanoTime() - t0) / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("Interrupted while stopping {}", s.name());
        } catch (Exception e) {
            // keep going: what comes after must still be stopped
            LOG.warn("Stopping {} failed", s.name(), e);
        }
    }
}

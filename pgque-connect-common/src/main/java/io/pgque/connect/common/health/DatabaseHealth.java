/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.health;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import io.pgque.connect.common.probe.ConnectionFailure;
import org.apache.kafka.connect.errors.ConnectException;

import java.util.function.LongSupplier;

/**
 * Whether a task reaches its database, as its connection pools see it: every connection handed
 * out or opened is a success, every login that failed, connection that broke or wait for a
 * connection that timed out is a failure. An outage runs from the first failure after the last
 * success to the next success. Both connectors publish it ({@link DatabaseHealthMetrics}) and
 * end a task whose outage outlasts {@code connection.max.outage.ms} ({@link #checkOutage}), so
 * that Connect's status (and any restart tooling watching it) shows what a retrying task would
 * otherwise only write to the worker's log.
 *
 * <p>Thread-safe: the pools' threads report, the task's thread checks, the metrics thread reads.
 */
public final class DatabaseHealth {

    private final ConnectionSettings settings;
    private final long maxOutageMs;
    private final LongSupplier clockMs;
    private long lastSuccessMs = -1;
    private long outageSinceMs = -1;
    private Throwable lastFailure;

    public DatabaseHealth(ConnectionSettings settings) {
        this(settings, () -> System.nanoTime() / 1_000_000);
    }

    /** @param clockMs a monotonic clock in milliseconds (tests pass their own) */
    public DatabaseHealth(ConnectionSettings settings, LongSupplier clockMs) {
        this.settings = settings;
        this.maxOutageMs = settings.maxOutageMs();
        this.clockMs = clockMs;
    }

    /** A connection was handed out, or opened. */
    public synchronized void succeeded() {
        lastSuccessMs = clockMs.getAsLong();
        outageSinceMs = -1;
    }

    /** A login failed, a connection broke, or no connection came within connection.timeout.ms. */
    public synchronized void failed(Throwable failure) {
        if (outageSinceMs < 0) {
            outageSinceMs = clockMs.getAsLong();
        }
        lastFailure = failure;
    }

    /**
     * A wait for a connection timed out: a failure, but the pool does not say why, so a reason
     * already seen in this outage (a refused login, say) stays the last error.
     */
    public synchronized void timedOut(Throwable failure) {
        boolean reasonKnown = outageSinceMs >= 0 && lastFailure != null;
        failed(reasonKnown ? lastFailure : failure);
    }

    /** Whether the last thing the pools saw was a success (true before anything was seen). */
    public synchronized boolean connected() {
        return outageSinceMs < 0;
    }

    /** Milliseconds since the last success, or -1 before the first one. */
    public synchronized long lastSuccessAgeMs() {
        return lastSuccessMs < 0 ? -1 : clockMs.getAsLong() - lastSuccessMs;
    }

    /** Milliseconds the current outage has lasted, or 0 when connected. */
    public synchronized long outageMs() {
        return outageSinceMs < 0 ? 0 : clockMs.getAsLong() - outageSinceMs;
    }

    /**
     * Ends the task (from its own thread: {@code put} or {@code poll}) when
     * {@code connection.max.outage.ms} is set and the current outage has lasted longer, with the
     * last failure as the reason and its cause.
     *
     * @throws ConnectException not retriable: Connect marks the task FAILED with this message
     */
    public void checkOutage() {
        if (maxOutageMs <= 0) {
            return;
        }
        long outage;
        Throwable failure;
        synchronized (this) {
            outage = outageMs();
            failure = lastFailure;
        }
        if (outage > maxOutageMs) {
            String why = failure == null ? "unknown" : ConnectionFailure.classify(failure, settings).message();
            throw new ConnectException("No working connection to the database for " + outage + " ms, longer than "
                    + ConnectionConfigDef.MAX_OUTAGE_MS + "=" + maxOutageMs + "; the task stops. Last error: " + why
                    + ". Restart the task once the database is back", failure);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A background heartbeat of a cooperative worker (see {@link CoopConsumer#heartbeat}); runs until
 * closed. A failed beat is logged and the next one tried: one lost beat costs nothing while the
 * period is well below the dead interval.
 */
public final class Heartbeat implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);

    private final ScheduledExecutorService timer;

    private Heartbeat(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    static Heartbeat start(BooleanSupplier beat, Duration every, String threadName) {
        Objects.requireNonNull(every, "every");
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("heartbeat period must be positive, was " + every);
        }
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        long millis = Math.max(1, every.toMillis());
        timer.scheduleWithFixedDelay(() -> {
            try {
                if (!beat.getAsBoolean()) {
                    LOG.warn("{}: the worker is not registered; nothing to keep alive", threadName);
                }
            } catch (RuntimeException e) {
                LOG.warn("{}: heartbeat failed, trying again in {} ms: {}", threadName, millis, e.getMessage());
            }
        }, millis, millis, TimeUnit.MILLISECONDS);
        return new Heartbeat(timer);
    }

    /** Stops beating; waits for a beat in progress. */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

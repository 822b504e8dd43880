/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Waits for a condition by asking it again and again until a deadline. Everything the quickstart
 * waits for (a port, a connector, the last event) is observable, so it never sleeps a fixed time
 * and hopes.
 */
public final class Await {

    /** Short enough to notice readiness quickly, long enough not to busy the 2-core machines it runs on. */
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private Await() {
    }

    /**
     * Returns the first present value of {@code probe}, or throws once {@code timeout} has passed.
     * An I/O failure of the probe counts as "not yet" (what is awaited may not listen yet) and
     * becomes the timeout's cause if it persists; any other exception ends the wait at once.
     *
     * @param what what is awaited, for the timeout's message
     */
    public static <T> T until(String what, Duration timeout, Supplier<Optional<T>> probe) throws TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        UncheckedIOException lastFailure = null;
        while (true) {
            try {
                Optional<T> value = probe.get();
                if (value.isPresent()) {
                    return value.get();
                }
            } catch (UncheckedIOException e) {
                lastFailure = e;
            }
            if (System.nanoTime() - deadline >= 0) {
                TimeoutException timedOut = new TimeoutException(
                        "gave up after " + timeout.toSeconds() + " s waiting for " + what);
                if (lastFailure != null) {
                    timedOut.initCause(lastFailure);
                }
                throw timedOut;
            }
            pause();
        }
    }

    /** Waits until {@code condition} holds; see {@link #until(String, Duration, Supplier)}. */
    public static void condition(String what, Duration timeout, Supplier<Boolean> condition) throws TimeoutException {
        until(what, timeout, () -> condition.get() ? Optional.of(Boolean.TRUE) : Optional.empty());
    }

    private static void pause() {
        LockSupport.parkNanos(PAUSE_NANOS);
        if (Thread.interrupted()) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting");
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.testsupport;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting on a condition with a deadline, for tests and benchmarks: the condition is polled every
 * {@code every} (how often to look, not a guess at how long things take) and the wait fails with
 * an {@link AssertionError} naming what was awaited once the deadline passes. An interrupt ends
 * the wait the same way, with the thread's interrupt flag set again.
 */
public final class Await {

    /** How often a condition is polled when the caller does not say. */
    public static final Duration EVERY = Duration.ofMillis(50);

    private Await() {
    }

    /** Until {@code condition} holds; fails after {@code timeout}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, EVERY, condition);
    }

    public static void until(String what, Duration timeout, Duration every, BooleanSupplier condition) {
        until(() -> "timed out after " + timeout + " waiting for: " + what, timeout, every, condition);
    }

    /** As above, {@code failure} telling what went wrong (it may look at the state when the time is up). */
    public static void until(Supplier<String> failure, Duration timeout, Duration every, BooleanSupplier condition) {
        if (!within(timeout, every, condition)) {
            throw new AssertionError(failure.get());
        }
    }

    /** Whether {@code condition} held within {@code timeout}, without failing. */
    public static boolean within(Duration timeout, Duration every, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            pause(every);
        }
        return true;
    }

    /** Until {@code probe} yields a value, which it returns; fails after {@code timeout}. */
    public static <T> T value(String what, Duration timeout, Duration every, Supplier<Optional<T>> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            pause(every);
        }
    }

    private static void pause(Duration every) {
        try {
            Thread.sleep(every.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polling a condition with a deadline: the suite's only way of waiting for something. */
final class Waits {

    private static final long POLL_MS = 200;

    private Waits() {
    }

    static void until(BooleanSupplier condition, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited " + timeout.toSeconds() + " s for " + what);
            }
            Thread.sleep(POLL_MS);
        }
    }
}

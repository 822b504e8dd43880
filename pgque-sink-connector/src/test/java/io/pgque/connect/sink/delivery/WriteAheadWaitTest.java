/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.delivery;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The writer thread's bounded waits: a stuck write costs the task thread one wait, not one per call. */
class WriteAheadWaitTest {

    private final WriteAhead<String> ahead = new WriteAhead<>("write-ahead-wait-test");
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile boolean done;

    @AfterEach
    void stop() {
        done = true;
        release.countDown();
        ahead.stop(Duration.ofSeconds(5));
    }

    private String stuck() throws InterruptedException {
        release.await();
        return "written";
    }

    @Test
    void aFinishedWriteIsSettledAtOnce() {
        assertTrue(ahead.settledWithin(Duration.ZERO), "nothing in flight");
        ahead.start(() -> "written");
        assertTrue(ahead.settledWithin(Duration.ofSeconds(30)));
        assertEquals("written", ahead.finish());
    }

    @Test
    void aStuckWriteCostsOneBoundedWait_thenNone_untilItEnds() {
        ahead.start(this::stuck);
        long start = System.nanoTime();
        assertFalse(ahead.settledWithin(Duration.ofMillis(300)));
        long firstMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(firstMs >= 300, "waited the bound: " + firstMs + " ms");

        start = System.nanoTime();
        assertFalse(ahead.settledWithinUnlessStalled(Duration.ofSeconds(30)), "known to be stuck");
        long secondMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(secondMs < 5_000, "no second wait for the same write: " + secondMs + " ms");

        release.countDown();
        assertTrue(ahead.settledWithin(Duration.ofSeconds(30)), "settled once it ended");
        assertEquals("written", ahead.finish());
    }

    @Test
    void anAbandonedWriteIsInterruptedAndTheNextOneRunsAfterIt() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        ahead.start(() -> {
            try {
                stuck();
                return "not interrupted";
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw e;
            }
        });
        assertFalse(ahead.settledWithin(Duration.ofMillis(100)));
        ahead.abandon();
        assertFalse(ahead.inFlight());
        assertTrue(interrupted.await(30, TimeUnit.SECONDS), "the abandoned write was interrupted");
        ahead.start(() -> "next");
        assertTrue(ahead.settledWithin(Duration.ofSeconds(30)));
        assertEquals("next", ahead.finish());
    }

    @Test
    void stopReturnsWithinItsGraceWhateverTheWriteDoes() {
        ahead.start(() -> {
            while (!done) { // ignores interrupts, as a JDBC call stuck on a socket does
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ignored) {
                    // as the driver would
                }
            }
            return "ended";
        });
        long start = System.nanoTime();
        assertFalse(ahead.stop(Duration.ofMillis(500)));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms < 5_000, "stop took " + ms + " ms");
    }
}

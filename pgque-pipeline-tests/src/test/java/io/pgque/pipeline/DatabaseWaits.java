/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Watches, by sampling the test JVM's threads, how long the connectors' threads stay inside the
 * PostgreSQL driver without coming out: the longest unbroken stretch per thread. A thread that
 * waits on a frozen server for good shows a stretch as long as the freeze; one whose waits are
 * bounded comes out (with a timeout error) and shows stretches no longer than its bound.
 */
final class DatabaseWaits implements AutoCloseable {

    private static final long SAMPLE_MS = 100;

    private final Predicate<String> watched;
    private final Thread sampler;
    /** Thread name → when its current stretch inside the driver began (nanoTime). */
    private final Map<String, Long> inside = new HashMap<>();
    private String longestThread = "(none)";
    private long longestNanos;
    private volatile boolean closed;

    /** @param watched which threads count, by name */
    DatabaseWaits(Predicate<String> watched) {
        this.watched = watched;
        this.sampler = new Thread(this::sample, "database-waits");
        this.sampler.setDaemon(true);
        this.sampler.start();
    }

    private void sample() {
        while (!closed) {
            long now = System.nanoTime();
            Map<String, Boolean> seen = new HashMap<>();
            Thread.getAllStackTraces().forEach((thread, stack) -> {
                if (thread.isAlive() && watched.test(thread.getName())) {
                    seen.put(thread.getName(), inDriver(stack));
                }
            });
            synchronized (this) {
                seen.forEach((name, inDriver) -> {
                    if (inDriver) {
                        inside.putIfAbsent(name, now);
                        record(name, now - inside.get(name));
                    } else {
                        inside.remove(name);
                    }
                });
                inside.keySet().retainAll(seen.keySet());
            }
            try {
                Thread.sleep(SAMPLE_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static boolean inDriver(StackTraceElement[] stack) {
        for (StackTraceElement frame : stack) {
            if (frame.getClassName().startsWith("org.postgresql.")) {
                return true;
            }
        }
        return false;
    }

    private void record(String name, long nanos) {
        if (nanos > longestNanos) {
            longestNanos = nanos;
            longestThread = name;
        }
    }

    /** The longest stretch seen so far, in milliseconds. */
    synchronized long longestMs() {
        return TimeUnit.NANOSECONDS.toMillis(longestNanos);
    }

    /** Which thread had the longest stretch. */
    synchronized String longestThread() {
        return longestThread;
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        sampler.interrupt();
        sampler.join(5_000);
    }
}

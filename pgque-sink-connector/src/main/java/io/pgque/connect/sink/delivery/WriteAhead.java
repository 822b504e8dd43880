/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.delivery;

import org.apache.kafka.connect.errors.ConnectException;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a put's write on the task's own writer thread, so that the task thread can go back to
 * Connect, which polls and converts the next records (and the task converts them to events)
 * while the database executes the write and waits for its commit to reach the disk. At most one
 * write is in flight, and writes run in the order they were started, so each partition's records
 * still reach the queue in offset order.
 *
 * <p>Used from the task thread only. Whatever the write touched is the task thread's again once
 * {@link #finish()} has returned (or thrown).
 */
final class WriteAhead<T> {

    private final ExecutorService thread;
    private Future<T> inFlight;
    // The write in flight once a bounded wait for it ran out: the database is not answering.
    private Future<T> stalled;

    WriteAhead(String threadName) {
        this.thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread t = new Thread(runnable, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    boolean inFlight() {
        return inFlight != null;
    }

    /** Starts {@code write}; the one before must have been finished. */
    void start(Callable<T> write) {
        if (inFlight != null) {
            throw new IllegalStateException("a write is still in flight");
        }
        inFlight = thread.submit(write);
    }

    /**
     * Waits at most {@code max} for the write in flight to end; its outcome is left for
     * {@link #finish()}.
     *
     * @return whether no write is running any more
     */
    boolean settledWithin(Duration max) {
        Future<T> write = inFlight;
        if (write == null || write.isDone()) {
            return true;
        }
        try {
            write.get(max.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            return true;
        } catch (TimeoutException e) {
            stalled = write;
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * As {@link #settledWithin}, but without waiting again for a write that already ran out an
     * earlier wait: when the worker stops a task, a put, preCommit and close come one after the
     * other, and the stuck write must cost the first of them only.
     */
    boolean settledWithinUnlessStalled(Duration max) {
        Future<T> write = inFlight;
        if (write != null && write == stalled && !write.isDone()) {
            return false;
        }
        return settledWithin(max);
    }

    /**
     * Gives up on the write in flight without waiting: it is interrupted (a wait between its
     * retries ends; a database call ends with its socket timeout or when the pool is closed)
     * and its outcome is never looked at. It may still commit; the next write runs after it.
     */
    void abandon() {
        if (inFlight != null) {
            inFlight.cancel(true);
            inFlight = null;
        }
    }

    /**
     * Waits for the write in flight and returns its result, or throws what it threw.
     *
     * @throws IllegalStateException when no write is in flight
     */
    T finish() {
        Future<T> write = inFlight;
        if (write == null) {
            throw new IllegalStateException("no write in flight");
        }
        inFlight = null;
        try {
            return write.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new ConnectException("The write failed", cause);
        } catch (InterruptedException e) {
            // The worker is cancelling the task; the write's outcome stays unknown, which
            // at-least-once redelivery and the stored offsets of exactly-once both cover.
            Thread.currentThread().interrupt();
            write.cancel(true);
            throw new ConnectException("Interrupted while waiting for a write to commit", e);
        }
    }

    /**
     * Stops the writer thread: a write still running is interrupted (its transaction rolls back
     * or, if it was committing, may commit) and waited for at most {@code grace}. A write stuck
     * in a database call ends when the pool is closed after this.
     *
     * @return whether the thread ended within the grace
     */
    boolean stop(Duration grace) {
        thread.shutdownNow();
        try {
            return thread.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

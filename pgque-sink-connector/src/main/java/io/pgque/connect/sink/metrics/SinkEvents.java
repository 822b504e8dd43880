/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.metrics;

/**
 * What the write path tells the task's metrics. Called on the task's thread only. The counts of
 * a transaction (events written, dedup hits) are reported when its outcome is known, so a
 * rolled-back attempt that is retried never counts twice.
 */
public interface SinkEvents {

    /** Records nothing: for code driven without a worker. */
    SinkEvents NONE = new SinkEvents() {
    };

    /** A put with at least one record returned (normally or with an error) after {@code nanos}. */
    default void putCompleted(long nanos) {
    }

    /** {@code events} of the open transaction were not appended: their dedup key was already used in the window. */
    default void dedupHits(int events) {
    }

    /** {@code events} of the open transaction were held until their due time rather than appended at once. */
    default void eventsHeld(int events) {
    }

    /** The open transaction committed, having sent {@code events} that the database accepted (dedup hits and held events included). */
    default void transactionCommitted(int events) {
    }

    /** The open transaction (or the attempt at it) was rolled back; what it counted is forgotten. */
    default void transactionRolledBack() {
    }

    /** A record was sent to the errant record reporter (the dead letter queue, or the error log). */
    default void deadLettered() {
    }

    /**
     * A write failed for a reason that may pass (lost connection, serialization failure, ...).
     *
     * @param retrying true when the task retries it now; false when it hands the records back to
     *                 the worker for a later redelivery
     */
    default void transientFailure(boolean retrying) {
    }

    /** Exactly-once: the database refused an offset move because another writer moved the offsets first. */
    default void offsetsFenced() {
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.resize;

import io.pgque.connect.source.ticker.TickReceiver;
import org.apache.kafka.connect.source.SourceRecord;

import java.time.Duration;
import java.util.List;

/** A task's reading of one slot set (its share of N slots): the lease loop and what goes with it. */
public interface SlotSetReader extends TickReceiver {

    /** The next whole batch, or null when none was ready within the poll interval. */
    List<SourceRecord> poll() throws InterruptedException;

    /** A tick was committed: wakes a poll() waiting for one. Any thread. */
    @Override
    void tickArrived();

    /** Makes a running or future poll() return at once. Any thread. */
    void stop();

    /** Gives the slots back at a batch boundary, waiting up to {@code grace} for Kafka. */
    void close(Duration grace);

    /**
     * Stops reading a set that a resize retired: its leases and open batches are gone in the
     * engine, so nothing is given back; what the task holds for the set (cursors, read-ahead
     * threads, windows shared with other tasks) goes.
     */
    void abandon();

    /** Gives up this worker's lease on {@code slot}, if it holds it; false when it did not. */
    boolean release(int slot);

    @FunctionalInterface
    interface Factory {
        /** Starts reading {@code slots} of the set of {@code n}. */
        SlotSetReader open(int n, List<Integer> slots);
    }
}

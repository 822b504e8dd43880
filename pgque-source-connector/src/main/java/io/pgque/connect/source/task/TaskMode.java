/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.task;

import org.apache.kafka.connect.source.SourceRecord;

import java.time.Duration;
import java.util.List;

/**
 * How a task reads, chosen once when it starts: ordered (its share of a partitioned consumer's
 * slots) or cooperative (one member of a cooperative consumer). Built from the task's shared
 * {@link TaskResources}; the task class only delegates.
 */
public interface TaskMode {

    /** What has to be set up in the database before the first read. */
    SetupLoop setup();

    /** The next records, or null when none were ready within the poll interval. Call once {@link #setup} is ready. */
    List<SourceRecord> poll() throws InterruptedException;

    /** Makes a running poll() return at once; stop follows from Connect. Any thread. */
    void wakeUp();

    /** Gives back what the task reads, waiting up to {@code grace} for Kafka; may wait on the database. */
    void close(Duration grace);

    TaskResources resources();

    /** Who the task reads as, for logs: its lease owner or member name. */
    String worker();
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.delivery;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;

/**
 * How a task turns Connect's calls into writes and offset commits: the one part of the task
 * that differs between {@code pgque.delivery.guarantee} modes.
 */
public interface Delivery {

    /** Connect assigned {@code partitions} to the task; their records follow. */
    void open(Collection<TopicPartition> partitions);

    /**
     * Writes {@code records} (and whatever else the mode keeps with them). The write may still
     * be running when this returns; the next put, {@link #preCommit} and {@link #close} wait for
     * it (at most {@link #WRITE_WAIT}), and a failure of it is thrown from there.
     */
    void put(Collection<SinkRecord> records);

    /**
     * The offsets Kafka may commit for the consumer group, given what the worker delivered:
     * never beyond what is committed in PostgreSQL.
     */
    Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> delivered);

    /** {@code partitions} were taken from the task (after their offsets were committed). */
    void close(Collection<TopicPartition> partitions);

    /**
     * How long put, preCommit and close wait for the write in flight before they stop waiting
     * (put asks the worker to deliver its records again, preCommit commits only what is known to
     * be written, close gives the write up). A write normally takes a fraction of this; one that
     * takes longer is waiting on a database that does not answer, and the task thread must stay
     * free to be stopped: Connect calls preCommit and close before stop, and tells the task
     * nothing before.
     */
    Duration WRITE_WAIT = Duration.ofSeconds(2);

    /**
     * What put throws when the previous put's write is still running after {@link #WRITE_WAIT}:
     * nothing of the put is taken, and the worker (told to wait as long) delivers its records
     * again. The wait is fixed; the write itself is bounded by the connection settings it names.
     */
    static RetriableException writeStillRunning(int records) {
        return new RetriableException("The previous put's write is still waiting for PostgreSQL after "
                + WRITE_WAIT.toMillis() + " ms, the longest a put waits for it (a fixed bound); the worker delivers these "
                + records + " records again in " + WRITE_WAIT.toMillis() + " ms. The write goes on until PostgreSQL "
                + "answers or a bound of its own ends it: connection.statement.timeout.ms or connection.lock.timeout.ms "
                + "(the server), connection.socket.timeout.ms (no answer at all), then pgque.retry.max retries");
    }

    /** How long stop waits for the writer thread; what is still running ends when the pool closes. */
    Duration STOP_GRACE = Duration.ofSeconds(1);

    /** The task stops: ends the writer thread, waiting at most {@link #STOP_GRACE}. */
    void stop();
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.delivery;

import io.pgque.connect.sink.convert.RecordConverter;
import io.pgque.connect.sink.errors.BadRecordHandler;
import io.pgque.connect.sink.write.RejectedEvent;
import io.pgque.connect.sink.write.SinkWriter;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The default mode: each put is committed in PostgreSQL before Kafka may commit its offsets. A
 * failure between the two makes the worker deliver a suffix again, which is written again after
 * the originals (duplicates, never reordering).
 *
 * <p>A put's write runs on the task's writer thread ({@link WriteAhead}) while the worker polls
 * and converts the next records; the next put, or {@code preCommit}, waits for it first. So
 * {@code preCommit} still only ever returns offsets whose events are committed. When a write
 * fails for a reason that retrying can cure (the database stayed unreachable through the
 * writer's retries), the worker has already moved on: the task then seeks each partition of the
 * failed put back to the put's first record and drops the later records of those partitions, so
 * the worker delivers them again, in order.
 *
 * <p>No call waits for a write longer than {@link Delivery#WRITE_WAIT}: a put finding the
 * previous write still running after that asks the worker to deliver its records again later
 * (nothing of the put was taken yet); preCommit lets Kafka commit only up to the write; close
 * gives the write up and has its partitions delivered again, as if it had failed, so that a
 * database that hangs cannot hold up a rebalance or the task's stop. A write given up may still
 * commit, which makes duplicates, never gaps or reordering: the next write runs after it.
 */
public final class AtLeastOnceDelivery implements Delivery {

    private static final Logger log = LoggerFactory.getLogger(AtLeastOnceDelivery.class);

    private final RecordConverter converter;
    private final BadRecordHandler badRecords;
    private final SinkWriter writer;
    private final SinkTaskContext context;
    private final WriteAhead<List<RejectedEvent>> ahead;
    // The put whose write is in flight.
    private ConvertedPut writing;
    // Partitions to deliver again after a failed write, from these offsets: to seek at the next
    // put, then sought (the worker seeks before the put after it).
    private final Map<TopicPartition, Long> toSeek = new HashMap<>();
    private final Map<TopicPartition, Long> sought = new HashMap<>();
    // A write failure that retrying cannot cure, thrown again until the worker stops the task.
    private RuntimeException failed;

    public AtLeastOnceDelivery(RecordConverter converter, BadRecordHandler badRecords, SinkWriter writer,
                               SinkTaskContext context, String writerThreadName) {
        this.converter = converter;
        this.badRecords = badRecords;
        this.writer = writer;
        this.context = context;
        this.ahead = new WriteAhead<>(writerThreadName);
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        // Kafka's own committed offsets say where to resume.
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (failed != null) {
            throw failed;
        }
        if (!ahead.settledWithin(WRITE_WAIT)) {
            // Nothing of this put is taken yet: the worker keeps these records and, after this
            // long (during which it can stop the task), puts them again.
            context.timeout(WRITE_WAIT.toMillis());
            throw Delivery.writeStillRunning(records.size());
        }
        // The worker applied the seeks asked for at the last put before delivering these.
        sought.clear();
        // Converted while the previous put's write is still running.
        ConvertedPut put = ConvertedPut.of(converter, records);
        settle();
        if (!toSeek.isEmpty()) {
            context.offset(Map.copyOf(toSeek));
            put = put.without(toSeek.keySet());
            sought.putAll(toSeek);
            toSeek.clear();
        }
        put.failUnlessReportable(badRecords);
        if (put.events().isEmpty()) {
            put.report(badRecords, List.of());
            return;
        }
        ConvertedPut started = put;
        boolean canReport = badRecords.canReport();
        writing = started;
        ahead.start(() -> writer.write(started.events(), canReport));
    }

    /**
     * Waits for the write in flight, then reports its bad records (after the commit, so a write
     * that is retried never reports twice). A write that failed for a curable reason leaves its
     * partitions to be delivered again; any other failure is thrown, now and by every later put.
     */
    private void settle() {
        if (!ahead.inFlight()) {
            return;
        }
        ConvertedPut put = writing;
        writing = null;
        List<RejectedEvent> rejected;
        try {
            rejected = ahead.finish();
        } catch (RetriableException e) {
            Map<TopicPartition, Long> from = put.firstOffsets();
            from.forEach((partition, offset) -> toSeek.merge(partition, offset, Math::min));
            log.warn("{}; the records of {} will be delivered again from offsets {}", e.getMessage(), from.keySet(), from,
                    e);
            return;
        } catch (RuntimeException e) {
            failed = e;
            throw e;
        }
        put.report(badRecords, rejected);
    }

    /** Gives up on the write in flight as if it had failed curably: its partitions are delivered again. */
    private void abandon() {
        Map<TopicPartition, Long> from = writing.firstOffsets();
        writing = null;
        ahead.abandon();
        from.forEach((partition, offset) -> toSeek.merge(partition, offset, Math::min));
        log.warn("Gave up waiting for a write after {} ms (PostgreSQL does not answer); the records of {} will be "
                + "delivered again from offsets {}", WRITE_WAIT.toMillis(), from.keySet(), from);
    }

    /**
     * Waits (at most {@link Delivery#WRITE_WAIT}) for the write in flight; then only the dead
     * letter reports may still be on their way.
     */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> delivered) {
        if (failed != null) {
            // The worker counts the failed put as delivered; committing that would skip it.
            return Map.of();
        }
        // A write still running holds back its partitions, from its first record.
        Map<TopicPartition, Long> running = Map.of();
        if (ahead.settledWithinUnlessStalled(WRITE_WAIT)) {
            settle();
        } else {
            running = writing.firstOffsets();
        }
        badRecords.awaitReports();
        if (toSeek.isEmpty() && sought.isEmpty() && running.isEmpty()) {
            return delivered;
        }
        // Until the worker has sought back, what it counts as delivered runs past what is written.
        Map<TopicPartition, OffsetAndMetadata> committable = new HashMap<>(delivered);
        for (Map<TopicPartition, Long> from : List.of(toSeek, sought, running)) {
            from.forEach((partition, offset) -> committable.computeIfPresent(partition,
                    (p, current) -> current.offset() > offset ? new OffsetAndMetadata(offset) : current));
        }
        return committable;
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        if (ahead.settledWithinUnlessStalled(WRITE_WAIT)) {
            settle();
        } else {
            abandon();
        }
        // Their next owner starts from the offsets Kafka committed, which never passed a failed write.
        partitions.forEach(toSeek::remove);
        partitions.forEach(sought::remove);
    }

    @Override
    public void stop() {
        ahead.stop(STOP_GRACE);
    }
}

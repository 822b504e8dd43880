/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.delivery;

import io.pgque.connect.sink.convert.RecordConverter;
import io.pgque.connect.sink.errors.BadRecordHandler;
import io.pgque.connect.sink.metrics.SinkEvents;
import io.pgque.connect.sink.offsets.OffsetMove;
import io.pgque.connect.sink.offsets.OffsetsFencedException;
import io.pgque.connect.sink.offsets.PartitionOffsets;
import io.pgque.connect.sink.offsets.StoredOffsets;
import io.pgque.connect.sink.write.FailureKind;
import io.pgque.connect.sink.write.SinkWriter;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code pgque.delivery.guarantee=exactly_once}: PostgreSQL, not Kafka, holds the offsets. Each
 * put writes its events and moves each touched partition's stored next offset in one
 * transaction, so the queue and the offsets never disagree. On assignment the task seeks to the
 * stored offsets; records below them (which Kafka delivers again after a restart or a
 * rebalance, from its own older commit) are dropped; Kafka is told to commit only what
 * PostgreSQL has.
 *
 * <p>Each move names the offset the task expects to be stored. If another task wrote the
 * partition since (the task lost it in a rebalance and does not know yet, or wrote a commit
 * whose outcome it never learned), the database refuses the move: the put rolls back, the task
 * reads the stored offsets again, drops what is stored and writes the rest.
 *
 * <p>As in the default mode, a put's write runs on the task's writer thread ({@link WriteAhead})
 * while the worker polls and converts the next records. The stored offsets the next put is
 * checked against are those its predecessor committed, so the next put waits for it before
 * deciding what is fresh; {@code preCommit}, {@code open} and {@code close} wait for it too.
 * None waits longer than {@link Delivery#WRITE_WAIT}: a put then asks the worker to deliver its
 * records again later, preCommit returns what PostgreSQL is known to have, and close leaves the
 * write to finish or fail on its own: whatever it commits, the stored offsets record, so the
 * partitions' next owner (this task or another) skips it.
 */
public final class ExactlyOnceDelivery implements Delivery {

    private static final Logger log = LoggerFactory.getLogger(ExactlyOnceDelivery.class);

    /**
     * Refusals in a row before the put is handed back to the worker. Each one means another
     * task committed the partition in between: during a rebalance handover that happens once
     * or twice; more means two live tasks share a partition, which Connect resolves by revoking
     * it from one of them, so stepping back lets that happen.
     */
    static final int FENCED_ATTEMPTS = 5;

    private final RecordConverter converter;
    private final BadRecordHandler badRecords;
    private final SinkWriter writer;
    private final DataSource dataSource;
    private final StoredOffsets store;
    private final SinkTaskContext context;
    private final long redeliveryBackoffMs;
    private final PartitionOffsets offsets = new PartitionOffsets();
    private final WriteAhead<Void> ahead;
    // The put whose write is in flight.
    private ConvertedPut writing;
    // A write failure that retrying cannot cure, thrown again until the worker stops the task.
    private RuntimeException failed;
    private final SinkEvents metrics;

    /**
     * @param redeliveryBackoffMs how long the worker should wait before delivering the records
     *                            again when the stored offsets cannot be read
     */
    public ExactlyOnceDelivery(RecordConverter converter, BadRecordHandler badRecords, SinkWriter writer,
                               DataSource dataSource, StoredOffsets store, SinkTaskContext context,
                               long redeliveryBackoffMs, String writerThreadName, SinkEvents metrics) {
        this.metrics = metrics;
        this.converter = converter;
        this.badRecords = badRecords;
        this.writer = writer;
        this.dataSource = dataSource;
        this.store = store;
        this.context = context;
        this.redeliveryBackoffMs = redeliveryBackoffMs;
        this.ahead = new WriteAhead<>(writerThreadName);
    }

    /**
     * Reads the stored offsets and seeks each partition that has one. If the database cannot be
     * reached now, the partitions stay unknown and put() reads them before writing: failing
     * here would fail the task from inside the rebalance.
     */
    @Override
    public void open(Collection<TopicPartition> partitions) {
        settle();
        Map<TopicPartition, Long> stored;
        try {
            stored = store.read(dataSource);
        } catch (RuntimeException e) {
            log.warn("Could not read the stored Kafka offsets of {} on assignment ({}); they will be read before "
                    + "the first write of each", partitions, e.getMessage(), e);
            offsets.forget(partitions);
            return;
        }
        offsets.learn(partitions, stored);
        Map<TopicPartition, Long> seeks = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
        for (TopicPartition partition : partitions) {
            Long next = stored.get(partition);
            if (next != null) {
                seeks.put(partition, next);
            }
        }
        if (!seeks.isEmpty()) {
            context.offset(seeks);
        }
        log.info("Assigned {} partitions of connector '{}'; resuming from the offsets stored in PostgreSQL: {}",
                partitions.size(), store.connector(), seeks);
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
        // Converted while the previous put's write is still running; what is fresh is known
        // only once it has committed.
        ConvertedPut converted = ConvertedPut.of(converter, records);
        settle();
        List<SinkRecord> fresh = offsets.unwritten(learnUnknown(records));
        if (fresh.isEmpty()) {
            return;
        }
        ConvertedPut put = converted.only(fresh);
        put.failUnlessReportable(badRecords);
        writing = put;
        ahead.start(() -> writeWithOffsets(put));
    }

    /**
     * On the writer thread: the put's events and its offset moves in one transaction. Bad
     * records advance the offsets too: they are handled, once reported. They are reported inside
     * the transaction, and the reports awaited, so a crash may report one twice but can never
     * commit past a report that was lost. When another writer moved the offsets, the task reads
     * them again and writes only what they do not cover.
     */
    private Void writeWithOffsets(ConvertedPut put) {
        for (int attempt = 1; ; attempt++) {
            List<SinkRecord> fresh = offsets.unwritten(put.records());
            if (fresh.isEmpty()) {
                return null;
            }
            ConvertedPut remaining = put.only(fresh);
            List<OffsetMove> moves = offsets.moves(fresh);
            try {
                writer.write(remaining.events(), badRecords.canReport(), (connection, rejected) -> {
                    remaining.report(badRecords, rejected);
                    badRecords.awaitReports();
                    store.commit(connection, moves);
                });
                offsets.committed(moves);
                return null;
            } catch (OffsetsFencedException e) {
                metrics.offsetsFenced();
                List<TopicPartition> partitions = e.moves().stream().map(OffsetMove::partition).toList();
                offsets.forget(partitions);
                if (attempt >= FENCED_ATTEMPTS) {
                    throw new RetriableException("The stored offsets of " + partitions + " were moved by another "
                            + "writer " + attempt + " times in a row", e);
                }
                log.warn("{}; reading the stored offsets of {} again and writing only what they do not cover",
                        e.getMessage(), partitions);
                relearn(partitions, put);
            }
        }
    }

    /**
     * Reads the stored offsets of {@code partitions} again. If the put starts above one of
     * them, records between are missing from the queue and only a delivery from the stored
     * offset can bring them: that is left to the task thread (see {@link #settle()}).
     */
    private void relearn(List<TopicPartition> partitions, ConvertedPut put) {
        Map<TopicPartition, Long> stored = readStored();
        offsets.learn(partitions, stored);
        Map<TopicPartition, Long> first = put.firstOffsets();
        for (TopicPartition partition : partitions) {
            Long next = stored.get(partition);
            if (next != null && first.get(partition) > next) {
                offsets.forget(partitions);
                throw new RetriableException("The records of " + partition + " start at " + first.get(partition)
                        + ", above the offset stored in PostgreSQL (" + next + ")");
            }
        }
    }

    /**
     * Waits for the write in flight. If it failed in a way that retrying can cure, nothing of it
     * is committed (or, if its commit's outcome was lost, the stored offsets say so): its
     * partitions are read again before their next write, which seeks them back to the stored
     * offsets when records are missing. Any other failure is thrown, now and by every later put.
     */
    private void settle() {
        if (!ahead.inFlight()) {
            return;
        }
        ConvertedPut put = writing;
        writing = null;
        try {
            ahead.finish();
        } catch (RetriableException e) {
            offsets.forget(put.firstOffsets().keySet());
            context.timeout(redeliveryBackoffMs);
            log.warn("{}; the stored offsets of {} will be read again before their next write", e.getMessage(),
                    put.firstOffsets().keySet(), e);
        } catch (RuntimeException e) {
            failed = e;
            throw e;
        }
    }

    /**
     * Reads the stored offsets of the partitions of {@code records} that are unknown (never read,
     * or found stale). Such a partition was not sought when it was assigned, so Kafka may have
     * delivered records from above its stored offset, past records the queue lacks: then it is
     * sought back, and its records are left to the next delivery.
     *
     * @return the records to consider for writing
     */
    private Collection<SinkRecord> learnUnknown(Collection<SinkRecord> records) {
        Set<TopicPartition> unknown = offsets.unknown(records);
        if (unknown.isEmpty()) {
            return records;
        }
        Map<TopicPartition, Long> stored = readStored();
        offsets.learn(unknown, stored);
        Map<TopicPartition, Long> firstOffsets = new HashMap<>();
        for (SinkRecord record : records) {
            firstOffsets.merge(PartitionOffsets.partitionOf(record), record.originalKafkaOffset(), Math::min);
        }
        Map<TopicPartition, Long> seeks = new HashMap<>();
        for (TopicPartition partition : unknown) {
            Long next = stored.get(partition);
            if (next != null && firstOffsets.get(partition) > next) {
                seeks.put(partition, next);
            }
        }
        if (seeks.isEmpty()) {
            return records;
        }
        log.info("Records of {} start above the offsets stored in PostgreSQL; seeking back to {}", seeks.keySet(), seeks);
        context.offset(seeks);
        List<SinkRecord> kept = new ArrayList<>(records.size());
        for (SinkRecord record : records) {
            if (!seeks.containsKey(PartitionOffsets.partitionOf(record))) {
                kept.add(record);
            }
        }
        return kept;
    }

    private Map<TopicPartition, Long> readStored() {
        try {
            return store.read(dataSource);
        } catch (RuntimeException e) {
            if (!FailureKind.of(e).retriable()) {
                throw new ConnectException(e.getMessage() + ". The exactly-once mode needs pgque.sink_offsets and "
                        + "pgque.sink_commit_offsets (engine with stored Kafka offsets, role pgque_writer)", e);
            }
            metrics.transientFailure(false);
            context.timeout(redeliveryBackoffMs);
            throw new RetriableException(e.getMessage() + "; the worker will deliver the records again in "
                    + redeliveryBackoffMs + " ms", e);
        }
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> delivered) {
        // The offsets known to be stored are committable whether or not a write is still running.
        if (ahead.settledWithinUnlessStalled(WRITE_WAIT)) {
            settle();
        }
        return offsets.committable(delivered);
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        if (ahead.settledWithinUnlessStalled(WRITE_WAIT)) {
            settle();
        }
        offsets.forget(partitions);
    }

    @Override
    public void stop() {
        ahead.stop(STOP_GRACE);
    }
}

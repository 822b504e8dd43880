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
    private final SinkEvents metrics;

    /**
     * @param redeliveryBackoffMs how long the worker should wait before delivering the records
     *                            again when the stored offsets cannot be read
     */
    public ExactlyOnceDelivery(RecordConverter converter, BadRecordHandler badRecords, SinkWriter writer,
                               DataSource dataSource, StoredOffsets store, SinkTaskContext context,
                               long redeliveryBackoffMs) {
        this(converter, badRecords, writer, dataSource, store, context, redeliveryBackoffMs, SinkEvents.NONE);
    }

    public ExactlyOnceDelivery(RecordConverter converter, BadRecordHandler badRecords, SinkWriter writer,
                               DataSource dataSource, StoredOffsets store, SinkTaskContext context,
                               long redeliveryBackoffMs, SinkEvents metrics) {
        this.metrics = metrics;
        this.converter = converter;
        this.badRecords = badRecords;
        this.writer = writer;
        this.dataSource = dataSource;
        this.store = store;
        this.context = context;
        this.redeliveryBackoffMs = redeliveryBackoffMs;
    }

    /**
     * Reads the stored offsets and seeks each partition that has one. If the database cannot be
     * reached now, the partitions stay unknown and put() reads them before writing: failing
     * here would fail the task from inside the rebalance.
     */
    @Override
    public void open(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> stored;
        try {
            stored = store.read(dataSource);
        } catch (RuntimeException e) {
            log.warn("Could not read the stored Kafka offsets of {} on assignment ({}); they will be read before "
                    + "the first write of each", partitions, e.getMessage());
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
        for (int attempt = 1; ; attempt++) {
            List<SinkRecord> fresh = offsets.unwritten(learnUnknown(records));
            if (fresh.isEmpty()) {
                return;
            }
            ConvertedPut put = ConvertedPut.of(converter, fresh);
            put.failUnlessReportable(badRecords);
            // Bad records advance the offsets too: they are handled, once reported. They are
            // reported inside the transaction, and the reports awaited, so a crash may report
            // one twice but can never commit past a report that was lost.
            List<OffsetMove> moves = offsets.moves(fresh);
            try {
                writer.write(put.events(), badRecords.canReport(), (connection, rejected) -> {
                    put.report(badRecords, rejected);
                    badRecords.awaitReports();
                    store.commit(connection, moves);
                });
                offsets.committed(moves);
                return;
            } catch (OffsetsFencedException e) {
                metrics.offsetsFenced();
                List<TopicPartition> partitions = e.moves().stream().map(OffsetMove::partition).toList();
                offsets.forget(partitions);
                if (attempt >= FENCED_ATTEMPTS) {
                    context.timeout(redeliveryBackoffMs);
                    throw new RetriableException("The stored offsets of " + partitions + " were moved by another "
                            + "writer " + attempt + " times in a row; the worker will deliver the records again in "
                            + redeliveryBackoffMs + " ms", e);
                }
                log.warn("{}; reading the stored offsets of {} again and writing only what they do not cover",
                        e.getMessage(), partitions);
            }
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
        return offsets.committable(delivered);
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        offsets.forget(partitions);
    }
}

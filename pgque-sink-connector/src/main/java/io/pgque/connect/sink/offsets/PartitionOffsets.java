/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.offsets;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one task knows of the stored next offset of its partitions: the value it read (when the
 * partition was assigned, or after it was fenced) or last committed itself. That value is the
 * expected one of the task's next move, so a task with a stale view is refused by the database
 * instead of overwriting a newer owner. Records below it are already in the queue and are
 * dropped. A partition whose value was never read is unknown, and nothing is written for it
 * until it is read.
 *
 * <p>Keyed by each record's original topic and partition (before transforms): the consumer's
 * coordinates, which is what seeks and offset commits name. Used by one thread at a time: the
 * task's thread, or its writer thread while a write is in flight (the task thread waits for it).
 */
public final class PartitionOffsets {

    // Present with a null value: read, and nothing stored yet.
    private final Map<TopicPartition, Long> known = new HashMap<>();

    public static TopicPartition partitionOf(SinkRecord record) {
        return new TopicPartition(record.originalTopic(), record.originalKafkaPartition());
    }

    /** The partitions of {@code records} whose stored offset this task has not read. */
    public Set<TopicPartition> unknown(Collection<SinkRecord> records) {
        Set<TopicPartition> unknown = new LinkedHashSet<>();
        for (SinkRecord record : records) {
            TopicPartition partition = partitionOf(record);
            if (!known.containsKey(partition)) {
                unknown.add(partition);
            }
        }
        return unknown;
    }

    /**
     * Takes {@code stored} (a connector's stored offsets, as read) as the view of
     * {@code partitions}; those absent from it have nothing stored.
     */
    public void learn(Collection<TopicPartition> partitions, Map<TopicPartition, Long> stored) {
        for (TopicPartition partition : partitions) {
            known.put(partition, stored.get(partition));
        }
    }

    /** Makes {@code partitions} unknown: revoked, or their view proved stale. */
    public void forget(Collection<TopicPartition> partitions) {
        partitions.forEach(known::remove);
    }

    /**
     * The records that are not in the queue yet: those at or above their partition's stored
     * next offset. Kafka delivers records again after a restart or a rebalance, from the last
     * offset it committed, which may be below what PostgreSQL has.
     */
    public List<SinkRecord> unwritten(Collection<SinkRecord> records) {
        List<SinkRecord> fresh = new ArrayList<>(records.size());
        for (SinkRecord record : records) {
            Long next = known.get(partitionOf(record));
            if (next == null || record.originalKafkaOffset() >= next) {
                fresh.add(record);
            }
        }
        return fresh;
    }

    /**
     * For each partition of {@code records} (all known), the move from the known stored offset
     * to one past its last record, in order of first appearance.
     */
    public List<OffsetMove> moves(Collection<SinkRecord> records) {
        Map<TopicPartition, Long> last = new LinkedHashMap<>();
        for (SinkRecord record : records) {
            last.merge(partitionOf(record), record.originalKafkaOffset(), Math::max);
        }
        List<OffsetMove> moves = new ArrayList<>(last.size());
        last.forEach((partition, offset) -> {
            if (!known.containsKey(partition)) {
                throw new IllegalStateException("no stored offset read for " + partition);
            }
            moves.add(new OffsetMove(partition, known.get(partition), offset + 1));
        });
        return moves;
    }

    /** Records that {@code moves} committed: they are the expected values of the next ones. */
    public void committed(List<OffsetMove> moves) {
        for (OffsetMove move : moves) {
            known.put(move.partition(), move.next());
        }
    }

    /**
     * The offsets Kafka may commit: for each partition of {@code current} (what the worker has
     * delivered) with a stored offset, the stored one, never beyond what was delivered. So the
     * consumer group's offsets never run ahead of PostgreSQL.
     */
    public Map<TopicPartition, OffsetAndMetadata> committable(Map<TopicPartition, OffsetAndMetadata> current) {
        Map<TopicPartition, OffsetAndMetadata> committable = new HashMap<>();
        current.forEach((partition, delivered) -> {
            Long stored = known.get(partition);
            if (stored != null) {
                committable.put(partition, new OffsetAndMetadata(Math.min(stored, delivered.offset())));
            }
        });
        return committable;
    }
}

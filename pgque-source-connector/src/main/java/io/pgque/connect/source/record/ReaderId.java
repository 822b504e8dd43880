/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.client.Message;
import io.pgque.connect.source.config.EventHeaders;
import io.pgque.connect.source.offsets.SourceOffsets;
import org.apache.kafka.connect.header.Headers;

import java.util.Map;

/**
 * Who read an event: a slot under one lease (its epoch), or a member of a cooperative consumer.
 * It gives each record what depends on that: the source partition its offset is stored under,
 * the Kafka partition, the provenance headers, and the name the logs and error messages use.
 */
public sealed interface ReaderId permits ReaderId.Slot, ReaderId.Member {

    /** Where Connect stores the offsets of this reader's records (fixed key order, see {@link SourceOffsets}). */
    Map<String, Object> sourcePartition();

    /** The Kafka partition of its records, or null to let the producer choose by key. */
    Integer kafkaPartition(KafkaPartitionChooser partitions);

    /** The chosen provenance headers of {@code message} read by this reader. */
    Headers headers(EventHeaders chosen, Message message);

    /** Names the reader in logs: "slot 3 of consumer 'c' on queue 'q'". */
    String logName();

    /** Names one event it read, for error messages. */
    String where(Message message);

    /** Whether reading takes a lease (a slot's), whose takeovers and losses the metrics count. */
    boolean leased();

    static Slot slot(String queue, String consumer, int slot, long epoch) {
        return new Slot(slot, epoch, SourceOffsets.partition(queue, consumer, slot),
                "slot " + slot + " of consumer '" + consumer + "' on queue '" + queue + "'");
    }

    static Member member(String queue, String consumer, String member) {
        return new Member(member, SourceOffsets.memberPartition(queue, consumer, member),
                "worker '" + member + "' of consumer '" + consumer + "' on queue '" + queue + "'");
    }

    /** Slot {@code slot} read under the lease of epoch {@code epoch}. */
    record Slot(int slot, long epoch, Map<String, Object> sourcePartition, String logName) implements ReaderId {

        /** The same slot under another lease. */
        public Slot withEpoch(long newEpoch) {
            return new Slot(slot, newEpoch, sourcePartition, logName);
        }

        @Override
        public Integer kafkaPartition(KafkaPartitionChooser partitions) {
            return partitions.partitionOf(slot);
        }

        @Override
        public Headers headers(EventHeaders chosen, Message message) {
            return chosen.of(message, slot, epoch);
        }

        @Override
        public String where(Message message) {
            return "event " + message.msgId() + " of batch " + message.batchId() + " on " + logName;
        }

        @Override
        public boolean leased() {
            return true;
        }
    }

    /** Member {@code name} of a cooperative consumer: the producer picks the partition by key. */
    record Member(String name, Map<String, Object> sourcePartition, String logName) implements ReaderId {

        @Override
        public Integer kafkaPartition(KafkaPartitionChooser partitions) {
            return null;
        }

        @Override
        public Headers headers(EventHeaders chosen, Message message) {
            return chosen.of(message, name);
        }

        @Override
        public String where(Message message) {
            return "event " + message.msgId() + " of batch " + message.batchId() + " read by " + logName;
        }

        @Override
        public boolean leased() {
            return false;
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.client.Message;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.Headers;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Turns one received event into a Kafka Connect record: key = partition key ({@code extra1}),
 * value per {@link RecordValues} (the payload, or the whole event), timestamp = event time,
 * headers per {@link EventHeaders}. Stateless apart from caches; used on the poll thread only.
 */
public final class RecordFactory {

    private final String queue;
    private final String consumer;
    private final TopicRouter topics;
    private final RecordValues values;
    private final KafkaPartitionChooser partitions;
    private final Map<Integer, Map<String, Object>> sourcePartitions = new HashMap<>();
    private Map<String, Object> memberPartition;

    public RecordFactory(String queue, String consumer, TopicRouter topics, RecordValues values,
                         KafkaPartitionChooser partitions) {
        this.queue = queue;
        this.consumer = consumer;
        this.topics = topics;
        this.values = values;
        this.partitions = partitions;
    }

    public TrackedRecord create(Message message, int slot, long epoch, DeliveryTicket ticket) {
        // Named only in error messages: not built for every record.
        Supplier<String> where = () -> "event " + message.msgId() + " of batch " + message.batchId() + " on slot "
                + slot + " of queue '" + queue + "'";
        return create(message, sourcePartitions.computeIfAbsent(slot, s -> SourceOffsets.partition(queue, consumer, s)),
                partitions.partitionOf(slot), EventHeaders.of(message, slot, epoch), ticket, where);
    }

    /** A record of cooperative worker {@code subconsumer}: the producer picks the partition by key. */
    public TrackedRecord create(Message message, String subconsumer, DeliveryTicket ticket) {
        Supplier<String> where = () -> "event " + message.msgId() + " of batch " + message.batchId() + " read by "
                + "worker '" + subconsumer + "' of queue '" + queue + "'";
        if (memberPartition == null || !subconsumer.equals(memberPartition.get(SourceOffsets.SUBCONSUMER))) {
            memberPartition = SourceOffsets.memberPartition(queue, consumer, subconsumer);
        }
        return create(message, memberPartition, null, EventHeaders.of(message, subconsumer), ticket, where);
    }

    private TrackedRecord create(Message message, Map<String, Object> sourcePartition, Integer kafkaPartition,
                                 Headers headers, DeliveryTicket ticket, Supplier<String> where) {
        SchemaAndValue value = values.valueOf(message, where);
        Long timestamp = message.createdAt() == null ? null : message.createdAt().toEpochMilli();
        return new TrackedRecord(
                sourcePartition,
                SourceOffsets.offset(message.batchId(), message.msgId()),
                topics.topicOf(message.type(), where),
                kafkaPartition,
                Schema.OPTIONAL_STRING_SCHEMA, message.extra1(),
                value.schema(), value.value(),
                timestamp,
                headers,
                ticket);
    }
}

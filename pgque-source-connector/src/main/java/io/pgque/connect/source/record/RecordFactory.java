/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.client.Message;
import io.pgque.connect.source.offsets.SourceOffsets;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Turns one received event into a Kafka Connect record: key = partition key ({@code extra1}),
 * value per {@link RecordValues} (the payload, or the whole event), timestamp = event time,
 * headers: the provenance headers chosen ({@link EventHeaders}). Stateless apart from caches;
 * used on the poll thread only.
 */
public final class RecordFactory {

    /** The slot a cooperative worker's dead letters are reported on: cooperative mode has none. */
    public static final int NO_SLOT = -1;

    private final String queue;
    private final String consumer;
    private final TopicRouter topics;
    private final RecordValues values;
    private final KafkaPartitionChooser partitions;
    private final UnreadableEvents unreadable;
    private final EventHeaders headers;
    private final Map<Integer, Map<String, Object>> sourcePartitions = new HashMap<>();
    private Map<String, Object> memberPartition;

    public RecordFactory(String queue, String consumer, TopicRouter topics, RecordValues values,
                         KafkaPartitionChooser partitions) {
        this(queue, consumer, topics, values, partitions, UnreadableEvents.FAIL, EventHeaders.ALL);
    }

    /** @param headers the provenance headers every record carries ({@code pgque.headers}) */
    public RecordFactory(String queue, String consumer, TopicRouter topics, RecordValues values,
                         KafkaPartitionChooser partitions, UnreadableEvents unreadable, EventHeaders headers) {
        this.unreadable = unreadable;
        this.headers = headers;
        this.queue = queue;
        this.consumer = consumer;
        this.topics = topics;
        this.values = values;
        this.partitions = partitions;
    }

    /**
     * The record for {@code message}, or null when its payload could not be converted and the
     * {@link UnreadableEvents} policy moved it to the dead letters: the ticket has then counted
     * it as done, and the caller leaves it out of what it hands to Connect.
     */
    public TrackedRecord create(Message message, int slot, long epoch, DeliveryTicket ticket) {
        // Named only in error messages: not built for every record.
        Supplier<String> where = () -> "event " + message.msgId() + " of batch " + message.batchId() + " on slot "
                + slot + " of consumer '" + consumer + "' on queue '" + queue + "'";
        SchemaAndValue value;
        try {
            value = values.valueOf(message, where);
        } catch (DataException e) {
            unreadable.handle(message, slot, where.get(), e);
            ticket.delivered();
            return null;
        }
        Long timestamp = message.createdAt() == null ? null : message.createdAt().toEpochMilli();
        return new TrackedRecord(
                sourcePartitions.computeIfAbsent(slot, s -> SourceOffsets.partition(queue, consumer, s)),
                SourceOffsets.offset(message.batchId(), message.msgId()),
                topics.topicOf(message.type(), where),
                partitions.partitionOf(slot),
                Schema.OPTIONAL_STRING_SCHEMA, message.extra1(),
                value.schema(), value.value(),
                timestamp,
                headers.of(message, slot, epoch),
                ticket);
    }

    /**
     * A record of cooperative worker {@code subconsumer}: the producer picks the partition by key.
     * Null, as for a slot, when the payload could not be converted and the {@link UnreadableEvents}
     * policy moved the event to the dead letters.
     */
    public TrackedRecord create(Message message, String subconsumer, DeliveryTicket ticket) {
        Supplier<String> where = () -> "event " + message.msgId() + " of batch " + message.batchId() + " read by "
                + "worker '" + subconsumer + "' of consumer '" + consumer + "' on queue '" + queue + "'";
        if (memberPartition == null || !subconsumer.equals(memberPartition.get(SourceOffsets.SUBCONSUMER))) {
            memberPartition = SourceOffsets.memberPartition(queue, consumer, subconsumer);
        }
        SchemaAndValue value;
        try {
            value = values.valueOf(message, where);
        } catch (DataException e) {
            unreadable.handle(message, NO_SLOT, where.get(), e);
            ticket.delivered();
            return null;
        }
        Long timestamp = message.createdAt() == null ? null : message.createdAt().toEpochMilli();
        return new TrackedRecord(memberPartition, SourceOffsets.offset(message.batchId(), message.msgId()),
                topics.topicOf(message.type(), where), null, Schema.OPTIONAL_STRING_SCHEMA, message.extra1(),
                value.schema(), value.value(), timestamp, headers.of(message, subconsumer), ticket);
    }
}

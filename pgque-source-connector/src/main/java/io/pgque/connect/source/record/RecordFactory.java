/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.client.Message;
import io.pgque.client.PausedKeys;
import io.pgque.connect.source.config.EventHeaders;
import io.pgque.connect.source.offsets.SourceOffsets;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;

import java.util.function.Supplier;

/**
 * Turns one received event into a Kafka Connect record: key = partition key ({@code extra1}),
 * value per {@link RecordValues} (the payload, or the whole event), timestamp = event time,
 * headers: the provenance headers chosen ({@link EventHeaders}); the source partition, Kafka
 * partition and slot or member headers come from the {@link ReaderId} that read it. Stateless;
 * used on the poll thread only.
 */
public final class RecordFactory {

    private final TopicRouter topics;
    private final RecordValues values;
    private final KafkaPartitionChooser partitions;
    private final UnreadableEvents unreadable;
    private final EventHeaders headers;

    public RecordFactory(TopicRouter topics, RecordValues values, KafkaPartitionChooser partitions) {
        this(topics, values, partitions, UnreadableEvents.FAIL, EventHeaders.ALL);
    }

    /** @param headers the provenance headers every record carries ({@code pgque.headers}) */
    public RecordFactory(TopicRouter topics, RecordValues values, KafkaPartitionChooser partitions,
                         UnreadableEvents unreadable, EventHeaders headers) {
        this.unreadable = unreadable;
        this.headers = headers;
        this.topics = topics;
        this.values = values;
        this.partitions = partitions;
    }

    /**
     * The record for {@code message} read by {@code from}, or null when it could not be made and
     * the {@link UnreadableEvents} policy moved it to {@code deadLetters} or paused it: the ticket
     * has then counted it as done, and the caller leaves it out of what it hands to Connect.
     */
    public TrackedRecord create(Message message, ReaderId from, UnreadableEvents.DeadLetters deadLetters,
                                DeliveryTicket ticket) {
        return create(message, from, deadLetters, ticket, null);
    }

    /**
     * {@link #create(Message, ReaderId, UnreadableEvents.DeadLetters, DeliveryTicket)}, noting in
     * {@code paused} a key the policy paused: its later events of the batch are not to be sent.
     */
    public TrackedRecord create(Message message, ReaderId from, UnreadableEvents.DeadLetters deadLetters,
                                DeliveryTicket ticket, PausedKeys paused) {
        // Named only in error messages: not built for every record.
        Supplier<String> where = () -> from.where(message);
        SchemaAndValue value;
        String topic = null;
        try {
            value = values.valueOf(message, where);
            if (unreadable.pauses()) {
                // An event no topic can take pauses its key too; under skip it fails the task, as it always did.
                topic = topics.topicOf(message.type(), where);
            }
        } catch (DataException e) {
            if (unreadable.handle(message, deadLetters, where.get(), e) && paused != null) {
                paused.paused(message);
            }
            ticket.delivered();
            return null;
        }
        Long timestamp = message.createdAt() == null ? null : message.createdAt().toEpochMilli();
        return new TrackedRecord(
                from.sourcePartition(),
                SourceOffsets.offset(message.batchId(), message.msgId()),
                topic != null ? topic : topics.topicOf(message.type(), where),
                from.kafkaPartition(partitions),
                Schema.OPTIONAL_STRING_SCHEMA, message.extra1(),
                value.schema(), value.value(),
                timestamp,
                from.headers(headers, message),
                ticket);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.kafka;

import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How many records of a topic a consumer group has committed, summed over partitions.
 *
 * <p>For the sink connector this is how many records are safely in the queue: Connect commits a
 * sink's offsets only after the task has flushed (here: committed to PostgreSQL) what came before.
 */
public final class ConsumerGroupProgress {

    private final Admin admin;
    private final String groupId;
    private final String topic;

    public ConsumerGroupProgress(Admin admin, String groupId, String topic) {
        this.admin = admin;
        this.groupId = groupId;
        this.topic = topic;
    }

    /** Sum of the group's committed offsets on the topic; 0 before its first commit. */
    public long committed() throws InterruptedException, ExecutionException {
        Map<TopicPartition, OffsetAndMetadata> offsets =
                admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get();
        long sum = 0;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            if (e.getKey().topic().equals(topic) && e.getValue() != null) {
                sum += e.getValue().offset();
            }
        }
        return sum;
    }
}

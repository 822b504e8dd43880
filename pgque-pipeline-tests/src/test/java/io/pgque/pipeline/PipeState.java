/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * Where the pipe stands, read from the places that hold it: the queue's event tables, the
 * source's slot cursors, the sink's Kafka consumer group and the offsets the sink stores in
 * PostgreSQL (exactly-once mode).
 */
final class PipeState {

    private final String bootstrapServers;
    private final DataSource db;

    PipeState(String bootstrapServers, DataSource db) {
        this.bootstrapServers = bootstrapServers;
        this.db = db;
    }

    /** Events in the queue, duplicates included (no rotation happens within a run). */
    long queueEvents() {
        String table = text("select queue_data_pfx from pgque.queue where queue_name = ?", Pipeline.QUEUE);
        return number("select count(*) from " + table);
    }

    /** Events not yet past the source's slot cursors, over all slots; -1 while a slot has none. */
    long slotLag(int slots) {
        long lag = 0;
        for (int slot = 0; slot < slots; slot++) {
            long pending = number("select coalesce((select pending_events from pgque.partition_slot_status"
                    + " where queue_name = ? and consumer = ? and slot = ?), -1)", Pipeline.QUEUE, Pipeline.SOURCE, slot);
            if (pending < 0) {
                return -1;
            }
            lag += pending;
        }
        return lag;
    }

    /** Records of the input topic past the sink's committed Kafka offsets (a partition never committed counts whole). */
    long sinkGroupLag() {
        Map<TopicPartition, Long> end = inputEndOffsets();
        Map<TopicPartition, OffsetAndMetadata> committed;
        try (Admin admin = KafkaClients.admin(bootstrapServers)) {
            committed = admin.listConsumerGroupOffsets("connect-" + Pipeline.SINK).partitionsToOffsetAndMetadata().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the sink's consumer group offsets", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        long lag = 0;
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            OffsetAndMetadata offset = committed.get(e.getKey());
            lag += e.getValue() - (offset == null ? 0 : offset.offset());
        }
        return lag;
    }

    /** Records of the input topic past the offsets the sink stored in PostgreSQL. */
    long storedOffsetLag() {
        Map<TopicPartition, Long> stored = new HashMap<>();
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("select topic, kafka_partition, next_offset from pgque.sink_offsets(?)")) {
            ps.setString(1, Pipeline.SINK);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stored.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        long lag = 0;
        for (Map.Entry<TopicPartition, Long> e : inputEndOffsets().entrySet()) {
            lag += e.getValue() - stored.getOrDefault(e.getKey(), 0L);
        }
        return lag;
    }

    private Map<TopicPartition, Long> inputEndOffsets() {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < Pipeline.IN_PARTITIONS; p++) {
            partitions.add(new TopicPartition(Pipeline.IN, p));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(bootstrapServers, Map.of())) {
            return consumer.endOffsets(partitions);
        }
    }

    private long number(String sql, Object... args) {
        return Long.parseLong(text(sql, args));
    }

    private String text(String sql, Object... args) {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}

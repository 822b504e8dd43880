/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The floor under every source figure: the same documents read from a plain table (no queue, no
 * batches, no acks) with a server-side cursor and produced with a KafkaProducer set up as
 * Connect sets up a source task's. Nothing a queue must do is done here, so a ratio to this loop
 * is the price of the queue and of the connector together.
 */
final class PlainTableLoop {

    /** Rows per round trip of the cursor. */
    static final int FETCH_SIZE = 1_000;
    private static final int LOAD_BATCH = 1_000;

    private PlainTableLoop() {
    }

    /**
     * A table holding the queue's events as plain rows: document {@code i} of {@link Documents}
     * with its key and type, under the id of the {@code i}-th event, so the headers match too.
     */
    static void load(Connection c, String table, int events) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("create table " + table + " (id bigint primary key, type text not null, key text not null,"
                    + " payload text not null)");
            try (PreparedStatement ps = c.prepareStatement("insert into " + table + " values (?, ?, ?, ?)")) {
                for (int i = 0; i < events; i++) {
                    ps.setLong(1, i + 1L);
                    ps.setString(2, "FileCreated");
                    ps.setString(3, Documents.key(i));
                    ps.setString(4, Documents.json(i));
                    ps.addBatch();
                    if ((i + 1) % LOAD_BATCH == 0 || i == events - 1) {
                        ps.executeBatch();
                        c.commit();
                    }
                }
            }
            // Read once, as the queue's tables are, so the loop does not pay for the cache.
            s.execute("select sum(octet_length(payload)) from " + table);
            c.commit();
        } finally {
            c.setAutoCommit(auto);
        }
    }

    static void drop(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("drop table " + table);
        }
    }

    /**
     * Reads every row in id order through a cursor ({@link #FETCH_SIZE} rows a round trip;
     * pgjdbc uses a portal only with autocommit off) and sends each as the connector's record
     * for that event (with its six headers, or with none); waits for the last acknowledgement.
     * With {@code bytes} the payload goes as the bytes the driver received (ByteArraySerializer),
     * as the connector's {@code pgque.value.format=bytes} sends it; otherwise as a string.
     * Returns the rows sent.
     */
    static long drain(Connection own, String bootstrapServers, String table, String topic, boolean headers,
                      boolean bytes, Map<String, String> producerOverrides) throws Exception {
        return bytes
                ? drain(own, bootstrapServers, table, topic, headers, producerOverrides, new ByteArraySerializer(),
                        rs -> rs.getBytes(4))
                : drain(own, bootstrapServers, table, topic, headers, producerOverrides, new StringSerializer(),
                        rs -> rs.getString(4));
    }

    /** The payload column of the current row, as the loop sends it. */
    private interface PayloadColumn<V> {
        V read(ResultSet rs) throws SQLException;
    }

    private static <V> long drain(Connection own, String bootstrapServers, String table, String topic,
                                  boolean headers, Map<String, String> producerOverrides, Serializer<V> values,
                                  PayloadColumn<V> payload) throws Exception {
        AtomicReference<Exception> failure = new AtomicReference<>();
        long sent = 0;
        own.setAutoCommit(false);
        try (KafkaProducer<String, V> producer = SourceTaskProducer.create(bootstrapServers, "plain-" + topic,
                producerOverrides, values);
             PreparedStatement ps = own.prepareStatement("select id, type, key, payload from " + table
                     + " order by id")) {
            ps.setFetchSize(FETCH_SIZE);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    // A batch id like the queue's: one per tick of 1,000 events.
                    producer.send(headers ? SourceTaskProducer.record(topic, rs.getString(3), payload.read(rs), id,
                            rs.getString(2), SourceLoader.batchOf(id), 0)
                            : new ProducerRecord<>(topic, rs.getString(3), payload.read(rs)), (metadata, e) -> {
                                if (e != null) {
                                    failure.compareAndSet(null, e);
                                }
                            });
                    sent++;
                }
            }
            own.commit();
            producer.flush();
            System.out.println("  " + SourceKafkaSide.producerStats("plain-" + topic));
        }
        if (failure.get() != null) {
            throw new IllegalStateException("the plain-table loop lost a record", failure.get());
        }
        return sent;
    }
}

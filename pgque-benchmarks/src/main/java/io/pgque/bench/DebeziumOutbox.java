/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import org.apache.kafka.connect.storage.StringConverter;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The peer the source is priced against: an outbox table read from the WAL by Debezium's
 * PostgreSQL connector ({@code pgoutput}) and routed to one topic by its outbox router, in the
 * benchmark's own Connect worker, with the producer settings of {@code config/pgque-source.json}
 * so that both sides send alike. Each run gets a table, a publication and a replication slot of
 * its own, dropped when it ends. Needs the server at {@code wal_level = logical}.
 */
final class DebeziumOutbox implements AutoCloseable {

    private static final Pattern HOST_PORT = Pattern.compile("jdbc:postgresql://([^:/]+):(\\d+)/([^?]+)");

    private final Connection c;
    private final SourceKafkaSide kafka;
    private final String name;

    private DebeziumOutbox(Connection c, SourceKafkaSide kafka, String name) {
        this.c = c;
        this.kafka = kafka;
        this.name = name;
    }

    /**
     * Creates outbox table {@code name}, starts connector {@code name} on it writing to topic
     * {@code name}, polling every {@code poll}, and returns once an event sent through it has
     * reached the topic (its sequence number is past any the load measures).
     */
    static DebeziumOutbox start(Connection c, SourceKafkaSide kafka, String jdbcUrl, String name, Duration poll)
            throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute("create table " + name + " (id uuid primary key default gen_random_uuid(),"
                    + " aggregatetype text not null, aggregateid text not null, type text not null, payload json)");
        }
        Matcher url = HOST_PORT.matcher(jdbcUrl);
        if (!url.lookingAt()) {
            throw new IllegalArgumentException("not a jdbc:postgresql://host:port/db URL: " + jdbcUrl);
        }
        Map<String, String> config = new HashMap<>();
        config.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        config.put("tasks.max", "1");
        config.put("database.hostname", url.group(1));
        config.put("database.port", url.group(2));
        config.put("database.dbname", url.group(3));
        config.put("database.user", "postgres");
        config.put("database.password", "postgres");
        config.put("topic.prefix", name);
        config.put("plugin.name", "pgoutput");
        config.put("slot.name", name);
        config.put("slot.drop.on.stop", "true");
        config.put("publication.name", name);
        config.put("publication.autocreate.mode", "filtered");
        config.put("table.include.list", "public." + name);
        config.put("snapshot.mode", "no_data");
        config.put("poll.interval.ms", Long.toString(poll.toMillis()));
        config.put("transforms", "outbox");
        config.put("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
        config.put("transforms.outbox.route.topic.replacement", name);
        config.put("key.converter", StringConverter.class.getName());
        config.put("value.converter", StringConverter.class.getName());
        config.put("producer.override.linger.ms", "0");
        config.put("producer.override.batch.size", Integer.toString(SourceBenchmark.PRODUCER_BATCH_SIZE));
        kafka.runConnector(name, config, 1);
        DebeziumOutbox outbox = new DebeziumOutbox(c, kafka, name);
        SourceBenchmark.awaitCondition("replication slot " + name + " streaming", outbox::slotActive);
        // A first event through the whole path: the stream has started before the clock does.
        outbox.sends(c).send(List.of("probe"), List.of(SourcePayload.of(Integer.MAX_VALUE, 0, 0)));
        try (var reader = kafka.readerFromStart(name)) {
            SourceBenchmark.awaitCondition("the probe event in " + name,
                    () -> !reader.poll(Duration.ofMillis(100)).isEmpty());
        }
        return outbox;
    }

    /** Events into the outbox table, one transaction per call, as an application writes them. */
    SteadyLoad.Sends sends(Connection own) {
        return (keys, payloads) -> {
            boolean autoCommit = own.getAutoCommit();
            own.setAutoCommit(false);
            try (PreparedStatement ps = own.prepareStatement("insert into " + name
                    + " (aggregatetype, aggregateid, type, payload) values ('file', ?, 'FileCreated', ?::json)")) {
                for (int i = 0; i < keys.size(); i++) {
                    ps.setString(1, keys.get(i));
                    ps.setString(2, payloads.get(i));
                    ps.addBatch();
                }
                ps.executeBatch();
                own.commit();
            } finally {
                own.setAutoCommit(autoCommit);
            }
            return null;
        };
    }

    private boolean slotActive() {
        try (PreparedStatement ps = c.prepareStatement(
                "select active from pg_replication_slots where slot_name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private boolean slotGone() {
        try (PreparedStatement ps = c.prepareStatement(
                "select count(*) from pg_replication_slots where slot_name = ? and active")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) == 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops the connector and drops what it read from: its slot (once released), publication and table. */
    @Override
    public void close() throws Exception {
        kafka.removeConnector(name, this::slotGone);
        try (Statement s = c.createStatement()) {
            s.execute("select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = '"
                    + name + "'");
            s.execute("drop publication if exists " + name);
            s.execute("drop table " + name);
        }
    }
}

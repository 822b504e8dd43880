/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.client.PgQue;
import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Await;
import io.pgque.testsupport.EmbeddedConnect;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.storage.StringConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * One Kafka broker and {@code workers} Connect workers in the test JVM, beside a PostgreSQL
 * database with the engine installed; and the few things the sink tests do with them.
 */
public final class SinkCluster implements AutoCloseable {

    public static final Duration TIMEOUT = Duration.ofSeconds(90);

    public final EmbeddedConnectCluster connect;
    private final String jdbcUrl;
    private final DataSource superuser;
    private KafkaProducer<byte[], byte[]> producer;

    /** A cluster beside a new database on the shared embedded PostgreSQL, with the engine installed. */
    public SinkCluster(String name, int workers) {
        this(name, workers, EmbeddedPg.newDatabase(name).installEngine(), Map.of());
    }

    public SinkCluster(String name, int workers, EmbeddedPg.TestDatabase db, Map<String, String> extraWorkerProps) {
        this(name, workers, db.jdbcUrl(), db.superuser(), extraWorkerProps);
    }

    /** A cluster beside any database, given its JDBC URL (superuser) and a superuser DataSource. */
    public SinkCluster(String name, int workers, String jdbcUrl, DataSource superuser, Map<String, String> extraWorkerProps) {
        this.jdbcUrl = jdbcUrl;
        this.superuser = superuser;
        // Offsets are committed often, so restart tests see a realistic mix of committed and
        // uncommitted records.
        this.connect = EmbeddedConnect.cluster(name, workers)
                .flushOffsetsEvery(Duration.ofSeconds(1))
                .worker(extraWorkerProps)
                .start();
    }

    public DataSource superuser() {
        return superuser;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public void createQueue(String queue) {
        PgQue.using(superuser).queues().create(queue);
    }

    /** A sink configuration writing {@code topic} to {@code queue}, with String converters and quick retries. */
    public Map<String, String> sinkConfig(String name, String topic, String queue) {
        Map<String, String> config = new HashMap<>();
        config.put("name", name);
        config.put("connector.class", PgQueSinkConnector.class.getName());
        config.put("tasks.max", "1");
        config.put("topics", topic);
        config.put("connection.url", jdbcUrl);
        config.put("connection.timeout.ms", "2000");
        config.put("connection.backoff.ms", "200");
        config.put("pgque.retry.backoff.ms", "200");
        config.put("pgque.queue", queue);
        config.put("key.converter", StringConverter.class.getName());
        config.put("value.converter", StringConverter.class.getName());
        config.put("pgque.payload.format", "string");
        return config;
    }

    /** Tolerates bad records, sending them to {@code dlqTopic} with the reason in the headers. */
    public static Map<String, String> withDeadLetters(Map<String, String> config, String dlqTopic) {
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", dlqTopic);
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        return config;
    }

    public void start(Map<String, String> config, int tasks) throws InterruptedException {
        connect.configureConnector(config.get("name"), config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(config.get("name"), tasks,
                "connector " + config.get("name") + " did not start");
    }

    public void send(String topic, String key, String value) {
        send(topic, null, key, value, Map.of());
    }

    /** Sends one record (asynchronously; {@link #flush()} waits for every send). */
    public void send(String topic, Integer partition, String key, String value, Map<String, String> headers) {
        send(topic, partition, bytes(key), bytes(value), headers);
    }

    public void send(String topic, Integer partition, byte[] key, byte[] value, Map<String, String> headers) {
        send(topic, partition, null, key, value, headers);
    }

    /** As above, with the record's timestamp ({@code null}: the producer's clock). */
    public void send(String topic, Integer partition, Long timestamp, byte[] key, byte[] value, Map<String, String> headers) {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, partition, timestamp, key, value);
        headers.forEach((name, text) -> record.headers().add(name, bytes(text)));
        producer().send(record);
    }

    public void flush() {
        producer().flush();
    }

    /** The Kafka offsets stored in PostgreSQL for {@code connector} (exactly-once), by partition. */
    public Map<TopicPartition, Long> storedOffsets(String connector) {
        Map<TopicPartition, Long> stored = new HashMap<>();
        try (Connection c = superuser.getConnection();
             PreparedStatement ps = c.prepareStatement("select topic, kafka_partition, next_offset from pgque.sink_offsets(?)")) {
            ps.setString(1, connector);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stored.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return stored;
    }

    /** The end offset of each of the topic's {@code partitions} partitions. */
    public Map<TopicPartition, Long> endOffsets(String topic, int partitions) throws Exception {
        Map<TopicPartition, Long> end = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            end.put(tp, connect.kafka().endOffset(tp));
        }
        return end;
    }

    /** The trace of a failed task, once it has failed. */
    public String awaitFailedTaskTrace(String connector) throws InterruptedException {
        connect.assertions().assertConnectorIsRunningAndTasksHaveFailed(connector, 1, "task did not fail");
        ConnectorStateInfo status = connect.connectorStatus(connector);
        return status.tasks().get(0).trace();
    }

    /** Polls {@code condition} until it holds; fails after {@link #TIMEOUT}. */
    public static void await(BooleanSupplier condition, String what) {
        Await.until(what, TIMEOUT, Duration.ofMillis(100), condition);
    }

    public static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    public static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private KafkaProducer<byte[], byte[]> producer() {
        if (producer == null) {
            Map<String, Object> props = new HashMap<>();
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            producer = connect.kafka().createProducer(props);
        }
        return producer;
    }

    /** Header values of a consumed record, as text, by name (last wins). */
    public static Map<String, String> headers(org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> record) {
        Map<String, String> headers = new HashMap<>();
        record.headers().forEach(h -> headers.put(h.key(), text(h.value())));
        return headers;
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        connect.stop();
    }
}

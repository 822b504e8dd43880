/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.testing.EmbeddedPg;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;

import static io.pgque.connect.sink.SinkCluster.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * PostgreSQL stops in the middle of a stream and comes back on the same port with the same data:
 * the task retries by itself, loses nothing, keeps per-key order, and sends no good record to
 * the dead letter topic. Uses a server of its own, since the shared one cannot be stopped.
 */
class SinkPostgresRestartIT {

    private static int port;
    private static File dataDir;
    private static EmbeddedPostgres pg;
    private static SinkCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        dataDir = Files.createTempDirectory("pgque-sink-restart").toFile();
        pg = startPostgres();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute(EmbeddedPg.engineScript());
        }
        cluster = new SinkCluster("sink-pg-restart", 1, pg.getJdbcUrl("postgres", "postgres"),
                pg.getPostgresDatabase(), Map.of());
    }

    @AfterAll
    static void stop() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    private static EmbeddedPostgres startPostgres() throws IOException {
        return EmbeddedPostgres.builder()
                .setPort(port)
                .setDataDirectory(dataDir)
                .setCleanDataDirectory(false)
                .setServerConfig("fsync", "off")
                .start();
    }

    @Test
    void theTaskRidesOutARestartWithoutLossReorderingOrDeadLetters() throws Exception {
        String name = "restart";
        String dlq = name + "_dlq";
        cluster.connect.kafka().createTopic(name, 2);
        cluster.createQueue(name);
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        Map<String, String> config = SinkCluster.withDeadLetters(cluster.sinkConfig(name, name, name), dlq);
        config.put("connection.timeout.ms", "1000");
        config.put("connection.attempts", "2");
        config.put("pgque.retry.max", "2");
        cluster.start(config, 1);

        KeyedStream stream = new KeyedStream(cluster, name, 6);
        stream.send(120);
        reader.awaitCount(120, TIMEOUT);

        try (LogWatch log = new LogWatch()) {
            pg.close();
            stream.send(120);
            SinkCluster.await(() -> log.contains("will deliver the records again"),
                    "the task to give a put back to the worker during the outage");
        }
        pg = startPostgres();
        stream.send(120);

        reader.awaitUntilAll(stream.sent(), TIMEOUT);
        stream.assertFirstDeliveriesInOrder(reader.messages());
        assertEquals(0L, cluster.connect.kafka().endOffset(new TopicPartition(dlq, 0)), "no good record in the dead letter topic");
        cluster.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 1, "the task is still running");
        cluster.connect.deleteConnector(name);
    }

    /**
     * With connection.max.outage.ms, an outage that lasts longer fails the task with the last
     * error, so that Connect's status shows it (and restart tooling can act); once the database
     * is back, a restart of the task is all it takes.
     */
    @Test
    void anOutageLongerThanTheBoundFailsTheTaskWithTheLastError() throws Exception {
        String name = "outage";
        cluster.connect.kafka().createTopic(name, 1);
        cluster.createQueue(name);
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("connection.timeout.ms", "500");
        config.put("connection.backoff.ms", "200");
        config.put("connection.max.outage.ms", "3000");
        cluster.start(config, 1);
        KeyedStream stream = new KeyedStream(cluster, name, 2);
        stream.send(20);
        reader.awaitCount(20, TIMEOUT);

        pg.close();
        try {
            stream.send(20);
            SinkCluster.await(() -> {
                ConnectorStateInfo status = cluster.connect.connectorStatus(name);
                return status.tasks().stream().anyMatch(t -> "FAILED".equals(t.state())
                        && t.trace().contains("connection.max.outage.ms=3000"));
            }, "the task to fail once the outage outlasted connection.max.outage.ms");
        } finally {
            pg = startPostgres();
        }
        cluster.connect.restartTask(name, 0);
        reader.awaitUntilAll(stream.sent(), TIMEOUT);
        cluster.connect.deleteConnector(name);
    }
}

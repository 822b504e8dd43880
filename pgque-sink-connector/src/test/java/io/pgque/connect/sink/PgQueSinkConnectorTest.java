/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.testsupport.LogCapture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkConnector;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static io.pgque.connect.sink.Fixtures.props;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PgQueSinkConnectorTest {

    @Test
    void versionComesFromTheBuild() {
        String version = new PgQueSinkConnector().version();
        assertFalse(version.isBlank());
        assertFalse(version.contains("${"), version);
        assertEquals(version, new PgQueSinkTask().version());
    }

    @Test
    void isDiscoverableAsASinkConnectorPlugin() {
        boolean found = ServiceLoader.load(SinkConnector.class).stream()
                .anyMatch(provider -> provider.type() == PgQueSinkConnector.class);
        assertTrue(found);
    }

    @Test
    void everyTaskGetsACopyOfTheConfiguration() {
        PgQueSinkConnector connector = new PgQueSinkConnector();
        Map<String, String> props = props();
        connector.start(props);
        List<Map<String, String>> configs = connector.taskConfigs(3);
        assertEquals(3, configs.size());
        for (int i = 0; i < configs.size(); i++) {
            Map<String, String> config = new java.util.HashMap<>(configs.get(i));
            assertEquals(Integer.toString(i), config.remove(PgQueSinkTask.TASK_INDEX), "each task knows its index");
            assertEquals(props, config);
            assertNotSame(props, configs.get(i));
        }
        assertNotSame(configs.get(0), configs.get(1));
        assertEquals(PgQueSinkTask.class, connector.taskClass());
        connector.stop();
    }

    @Test
    void offsetsThatCannotBeChangedInPostgresFailTheRequestAndSayWhy() {
        // Nothing listens on port 1: the connection is refused at once.
        Map<String, String> config = props("name", "orders-sink", "connection.url", "jdbc:postgresql://127.0.0.1:1/app",
                "connection.timeout.ms", "250");
        Map<TopicPartition, Long> offsets = new HashMap<>();
        offsets.put(new TopicPartition(Fixtures.TOPIC, 0), null);
        ConnectException e = assertThrows(ConnectException.class,
                () -> new PgQueSinkConnector().alterOffsets(config, offsets));
        assertTrue(e.getMessage().contains("reset the offsets of connector 'orders-sink'"), e.getMessage());
        assertTrue(e.getMessage().contains("Kafka's were left as they are"), e.getMessage());
        assertFalse(e.getMessage().contains("s3cret-pw"), "no password in " + e.getMessage());
    }

    @Test
    void startRefusesAnInvalidConfiguration() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> new PgQueSinkConnector().start(props("pgque.tombstones", "drop")));
        assertTrue(e.getMessage().contains("pgque.tombstones"), e.getMessage());
    }

    @Test
    void passwordsNeverReachTheLog() {
        String log = LogCapture.during(() -> {
            PgQueSinkConnector connector = new PgQueSinkConnector();
            // No server there: the task's login check at start finds none, and the task starts.
            connector.start(props("connection.ssl.key.password", "tls-key-secret",
                    "connection.url", "jdbc:postgresql://127.0.0.1:1/app"));
            PgQueSinkTask task = new PgQueSinkTask();
            task.start(connector.taskConfigs(1).get(0));
            task.stop();
            connector.stop();
        });
        assertTrue(log.contains("Starting PgQue sink connector"), log);
        assertTrue(log.contains("connection.password = [hidden]"), "Kafka's config dump is in the log: " + log);
        assertFalse(log.contains("s3cret-pw"), log);
        assertFalse(log.contains("tls-key-secret"), log);
    }

    @Test
    void validationErrorsNeverQuoteThePassword() {
        String errors = new PgQueSinkConnector()
                .validate(props("connection.url", "jdbc:postgresql://h/db?password=url-secret"))
                .configValues().stream()
                .flatMap(value -> value.errorMessages().stream())
                .reduce("", String::concat);
        assertTrue(errors.contains("must not carry a password"), errors);
        assertFalse(errors.contains("url-secret"), errors);
        assertFalse(errors.contains("s3cret-pw"), errors);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConnectorConfigFileTest {

    private static final Placeholders VALUES = new Placeholders(Map.of(
            "PGQUE_JDBC_URL", "jdbc:postgresql://localhost:1/postgres",
            "PGQUE_DB_ADDRESS", "localhost:1/postgres",
            "PGQUE_DB_USER", "postgres",
            "PGQUE_SECRETS_FILE", "/run/secrets/pgque.properties",
            "KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"));

    /** The key names every user, doc and test relies on (CONNECTORS.md, "Configuration contract"). */
    private static final Set<String> CONTRACT_KEYS = Set.of("connection.url", "connection.user",
            "connection.password", "connection.pool.size", "connection.attempts", "connection.backoff.ms",
            "pgque.schema.install", "pgque.queue", "pgque.queue.auto.create", "pgque.event.type",
            "pgque.payload.format", "pgque.partition.key", "pgque.extra3", "pgque.extra4", "pgque.tombstones",
            "pgque.dedup.key", "pgque.dedup.ttl.ms", "pgque.delivery.guarantee", "pgque.consumer", "pgque.slots",
            "topic", "pgque.value.format", "pgque.kafka.partitioner", "pgque.lease.ttl.ms",
            "pgque.poll.interval.ms", "pgque.batch.max.events", "pgque.ticker.enabled", "pgque.ticker.interval.ms");

    @Test
    void readsTheRestFormatAndFillsPlaceholders() throws IOException {
        ConnectorDefinition c = ConnectorConfigFile.parse("""
                {"name": "s", "config": {"connection.url": "${PGQUE_JDBC_URL}", "tasks.max": 2,
                 "pgque.ticker.enabled": true, "pgque.event.type": "${header:event_type}"}}""", VALUES, "test");
        assertEquals("s", c.name());
        assertEquals("jdbc:postgresql://localhost:1/postgres", c.config().get("connection.url"));
        assertEquals("2", c.config().get("tasks.max"));
        assertEquals("true", c.config().get("pgque.ticker.enabled"));
        assertEquals("${header:event_type}", c.config().get("pgque.event.type"));
    }

    @Test
    void rejectsOtherShapesWithTheFileName() {
        IOException e = assertThrows(IOException.class,
                () -> ConnectorConfigFile.parse("{\"connection.url\": \"x\"}", VALUES, "my.json"));
        assertTrue(e.getMessage().startsWith("my.json"), e.getMessage());
        e = assertThrows(IOException.class,
                () -> ConnectorConfigFile.parse("{\"name\": \"s\", \"config\": {\"a\": {\"b\": 1}}}", VALUES, "my.json"));
        assertTrue(e.getMessage().contains("'a'"), e.getMessage());
        e = assertThrows(IOException.class,
                () -> ConnectorConfigFile.parse("{\"name\": \"s\", \"config\": {\"a\": \"${NOPE}\"}}", VALUES, "my.json"));
        assertTrue(e.getMessage().contains("${NOPE}"), e.getMessage());
    }

    @Test
    void theRepositorysSinkFileUsesContractKeysAndKnownPlaceholders() throws IOException {
        ConnectorDefinition sink = ConnectorConfigFile.read(configDir().resolve(ConfigDirectory.SINK_FILE), VALUES);
        assertEquals("io.pgque.connect.sink.PgQueSinkConnector", sink.require("connector.class"));
        assertEquals("file-events", sink.require("topics"));
        assertEquals("jdbc:postgresql://localhost:1/postgres", sink.require("connection.url"));
        assertPgqueKeysAreInTheContract(sink, Set.of());
    }

    @Test
    void theRepositorysSourceFileUsesContractKeysAndKnownPlaceholders() throws IOException {
        ConnectorDefinition source = ConnectorConfigFile.read(configDir().resolve(ConfigDirectory.SOURCE_FILE), VALUES);
        assertEquals("io.pgque.connect.source.PgQueSourceConnector", source.require("connector.class"));
        assertEquals("file-events-out", source.require("topic"));
        assertEquals("jdbc:postgresql://localhost:1/postgres", source.require("connection.url"));
        assertEquals("4", source.require("pgque.slots"));
        assertPgqueKeysAreInTheContract(source, Set.of());
    }

    @Test
    void aFlagOverridesAFileValueWithoutTouchingTheRest() throws IOException {
        ConnectorDefinition source = ConnectorConfigFile.read(configDir().resolve(ConfigDirectory.SOURCE_FILE), VALUES);
        ConnectorDefinition eight = source.with("pgque.slots", "8");
        assertEquals("8", eight.require("pgque.slots"));
        assertEquals("4", source.require("pgque.slots"), "the original is unchanged");
        assertEquals(source.require("pgque.queue"), eight.require("pgque.queue"));
    }

    @Test
    void sinkAndSourceMeetAtOneQueue() throws IOException {
        ConnectorDefinition sink = ConnectorConfigFile.read(configDir().resolve(ConfigDirectory.SINK_FILE), VALUES);
        ConnectorDefinition source = ConnectorConfigFile.read(configDir().resolve(ConfigDirectory.SOURCE_FILE), VALUES);
        assertEquals(sink.require("pgque.queue"), source.require("pgque.queue"));
    }

    private static void assertPgqueKeysAreInTheContract(ConnectorDefinition c, Set<String> allowedExtras) {
        for (String key : c.config().keySet()) {
            boolean ours = key.startsWith("pgque.") || key.startsWith("connection.") || key.equals("topic");
            if (ours) {
                assertTrue(CONTRACT_KEYS.contains(key) || allowedExtras.contains(key),
                        c.name() + " uses '" + key + "', which is not in the configuration contract");
            }
        }
        assertFalse(c.toString().contains("jdbc:"), "toString must not show the config (it holds the password)");
    }

    private static Path configDir() {
        return ConfigDirectory.locate(Optional.empty(), Path.of(""));
    }
}

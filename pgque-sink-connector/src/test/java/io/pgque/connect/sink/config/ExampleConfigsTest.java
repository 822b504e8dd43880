/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The shipped example configurations stay valid as the configuration evolves, and hold no
 * password: Connect's REST API returns a connector's config as it was sent, so the samples name
 * theirs as a config provider reference.
 */
class ExampleConfigsTest {

    private static final Path DIR = Path.of("..", "config");
    /** What a deployment puts in place of the samples' placeholders. */
    private static final Map<String, String> PLACEHOLDERS = Map.of(
            "${PGQUE_DB_ADDRESS}", "db.example:5432/app",
            "${PGQUE_DB_USER}", "kafka_sink",
            "${PGQUE_SECRETS_FILE}", "/etc/pgque/secrets.properties");
    private static final String PASSWORD_REFERENCE = "${file:${PGQUE_SECRETS_FILE}:sink-password}";

    private static Map<String, String> filled(Map<String, String> props) {
        Map<String, String> filled = new HashMap<>();
        props.forEach((key, value) -> {
            String v = value;
            for (Map.Entry<String, String> placeholder : PLACEHOLDERS.entrySet()) {
                v = v.replace(placeholder.getKey(), placeholder.getValue());
            }
            filled.put(key, v);
        });
        return filled;
    }

    @Test
    void theRestExampleIsAValidSinkConfiguration() throws IOException {
        JsonNode root = new ObjectMapper().readTree(DIR.resolve("pgque-sink.json").toFile());
        Map<String, String> props = new HashMap<>();
        root.get("config").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
        assertEquals("io.pgque.connect.sink.PgQueSinkConnector", props.get("connector.class"));
        assertNoPassword(props);
        new PgQueSinkConfig(filled(props));
    }

    private static void assertNoPassword(Map<String, String> props) {
        assertEquals(PASSWORD_REFERENCE, props.get("connection.password"), "no password, a reference to one");
        assertFalse(props.containsKey("connection.ssl.key.password"), "no key password either");
    }

    /**
     * The JSON and properties samples are one connector in two formats, and what they ship is
     * fit for production: nothing that docs/sink.md calls development-only (installing the
     * engine, creating queues, a dead letter topic of one replica).
     */
    @Test
    void theTwoExamplesAgreeAndCarryProductionDefaults() throws IOException {
        JsonNode root = new ObjectMapper().readTree(DIR.resolve("pgque-sink.json").toFile());
        Map<String, String> json = new HashMap<>();
        root.get("config").fields().forEachRemaining(e -> json.put(e.getKey(), e.getValue().asText()));
        json.put("name", root.get("name").asText());
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(DIR.resolve("pgque-sink.properties"), StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        Map<String, String> standalone = new HashMap<>();
        properties.stringPropertyNames().forEach(name -> standalone.put(name, properties.getProperty(name)));
        assertEquals(json, standalone, "pgque-sink.json and pgque-sink.properties configure the same connector");
        for (String developmentOnly : List.of("pgque.schema.install", "pgque.queue.auto.create",
                "errors.deadletterqueue.topic.replication.factor")) {
            assertFalse(json.containsKey(developmentOnly), developmentOnly + " is for development, not the samples");
        }
    }

    @Test
    void theStandaloneExampleIsAValidSinkConfiguration() throws IOException {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(DIR.resolve("pgque-sink.properties"), StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        Map<String, String> props = new HashMap<>();
        properties.stringPropertyNames().forEach(name -> props.put(name, properties.getProperty(name)));
        assertEquals("io.pgque.connect.sink.PgQueSinkConnector", props.get("connector.class"));
        assertNoPassword(props);
        new PgQueSinkConfig(filled(props));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.connect.source.PgQueSourceConnector;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The example connector files in {@code config/} are what users copy first, so they must stay
 * valid: every key one of ours or Connect's, every value accepted, the connection values left as
 * placeholders (never a real address), and the password a config provider reference (never a
 * password: Connect's REST API returns a connector's config as it was sent).
 */
class ExampleConfigsTest {

    private static final Path CONFIG = Path.of("..", "config");
    private static final Map<String, String> PLACEHOLDERS = Map.of(
            "${PGQUE_JDBC_URL}", "jdbc:postgresql://db.example:5432/app",
            "${PGQUE_DB_USER}", "kafka_source");
    /** A reference a worker's FileConfigProvider resolves; the file's path is the deployment's. */
    private static final String PASSWORD_REFERENCE = "${file:${PGQUE_SECRETS_FILE}:source-password}";

    @Test
    void restFileIsAValidConnectorDefinition() throws IOException {
        Map<?, ?> file = new ObjectMapper().readValue(CONFIG.resolve("pgque-source.json").toFile(), Map.class);
        assertTrue(file.get("name") instanceof String, "a connector name");
        Map<String, String> config = new HashMap<>();
        ((Map<?, ?>) file.get("config")).forEach((k, v) -> config.put((String) k, (String) v));
        config.put("name", (String) file.get("name"));
        assertValid(config);
    }

    /** The JSON and properties samples are one connector in two formats. */
    @Test
    void theTwoFilesAgree() throws IOException {
        Map<?, ?> file = new ObjectMapper().readValue(CONFIG.resolve("pgque-source.json").toFile(), Map.class);
        Map<String, String> json = new HashMap<>();
        ((Map<?, ?>) file.get("config")).forEach((k, v) -> json.put((String) k, (String) v));
        json.put("name", (String) file.get("name"));
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(CONFIG.resolve("pgque-source.properties"), StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        Map<String, String> standalone = new HashMap<>();
        properties.stringPropertyNames().forEach(k -> standalone.put(k, properties.getProperty(k)));
        assertEquals(json, standalone, "pgque-source.json and pgque-source.properties configure the same connector");
    }

    @Test
    void standaloneFileIsAValidConnectorDefinition() throws IOException {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(CONFIG.resolve("pgque-source.properties"), StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        Map<String, String> config = new HashMap<>();
        properties.stringPropertyNames().forEach(k -> config.put(k, properties.getProperty(k)));
        assertValid(config);
    }

    private static void assertValid(Map<String, String> config) {
        assertEquals(PgQueSourceConnector.class.getName(), config.get("connector.class"));
        for (Map.Entry<String, String> placeholder : PLACEHOLDERS.entrySet()) {
            assertTrue(config.containsValue(placeholder.getKey()), "uses the placeholder " + placeholder.getKey());
        }
        assertEquals(PASSWORD_REFERENCE, config.get("connection.password"), "no password, a reference to one");
        assertFalse(config.containsKey("connection.ssl.key.password"), "no key password either");
        Map<String, String> filled = new HashMap<>();
        config.forEach((k, v) -> filled.put(k, PLACEHOLDERS.getOrDefault(v, v)));

        ConfigDef def = SourceConfigDef.build();
        for (String key : filled.keySet()) {
            if (key.startsWith("pgque.") || key.startsWith("connection.")) {
                assertTrue(def.names().contains(key), "unknown key " + key);
            }
        }
        SourceConfig parsed = new SourceConfig(filled);
        assertEquals(Map.of(), SourceConfigRules.check(parsed, filled.get("tasks.max")));
    }
}

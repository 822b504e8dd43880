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
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The shipped example configurations stay valid as the configuration evolves. */
class ExampleConfigsTest {

    private static final Path DIR = Path.of("..", "config");

    @Test
    void theRestExampleIsAValidSinkConfiguration() throws IOException {
        JsonNode root = new ObjectMapper().readTree(DIR.resolve("pgque-sink.json").toFile());
        Map<String, String> props = new HashMap<>();
        root.get("config").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
        assertEquals("io.pgque.connect.sink.PgQueSinkConnector", props.get("connector.class"));
        new PgQueSinkConfig(props);
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
        new PgQueSinkConfig(props);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads a connector file in the REST API's own format ({@code {"name": ..., "config": {...}}}),
 * the same file a user would {@code curl} to a worker, and fills in the quickstart's placeholders.
 */
public final class ConnectorConfigFile {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConnectorConfigFile() {
    }

    public static ConnectorDefinition read(Path file, Placeholders placeholders) throws IOException {
        return parse(Files.readString(file), placeholders, file.toString());
    }

    static ConnectorDefinition parse(String json, Placeholders placeholders, String origin) throws IOException {
        JsonNode root = JSON.readTree(json);
        JsonNode name = root.path("name");
        JsonNode config = root.path("config");
        if (!name.isTextual() || !config.isObject()) {
            throw new IOException(origin + ": expected {\"name\": \"...\", \"config\": {...}}");
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : config.properties()) {
            if (!e.getValue().isValueNode() || e.getValue().isNull()) {
                throw new IOException(origin + ": config value of '" + e.getKey() + "' must be a string, number or boolean");
            }
            try {
                values.put(e.getKey(), placeholders.fill(e.getValue().asText()));
            } catch (IllegalArgumentException unknown) {
                throw new IOException(origin + ": '" + e.getKey() + "': " + unknown.getMessage(), unknown);
            }
        }
        return new ConnectorDefinition(name.asText(), values);
    }
}

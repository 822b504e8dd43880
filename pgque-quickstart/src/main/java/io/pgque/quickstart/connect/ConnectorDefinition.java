/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import java.util.HashMap;
import java.util.Map;

/**
 * A connector as the REST API takes it: a name and its flat string config.
 *
 * @param name   the connector's name
 * @param config its config; never contains unresolved quickstart placeholders
 */
public record ConnectorDefinition(String name, Map<String, String> config) {

    public ConnectorDefinition {
        config = Map.copyOf(config);
    }

    /** The value of {@code key}, which the quickstart itself needs to know. */
    public String require(String key) {
        String value = config.get(key);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("connector '" + name + "' has no '" + key + "' in its config file");
        }
        return value;
    }

    /** The value of {@code key}, or {@code fallback} when the config leaves it to the default. */
    public String get(String key, String fallback) {
        String value = config.get(key);
        return value == null || value.isBlank() ? fallback : value;
    }

    /** A copy with {@code key} set to {@code value}: how a command-line flag overrides the file. */
    public ConnectorDefinition with(String key, String value) {
        Map<String, String> changed = new HashMap<>(config);
        changed.put(key, value);
        return new ConnectorDefinition(name, changed);
    }

    /** Never prints the config: it holds the database password. */
    @Override
    public String toString() {
        return "ConnectorDefinition[" + name + "]";
    }
}

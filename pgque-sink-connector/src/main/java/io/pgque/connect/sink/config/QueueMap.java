/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads {@code pgque.queue.map}: comma-separated {@code topic:queue} pairs. */
public final class QueueMap {

    private QueueMap() {
    }

    /**
     * Topic → queue, in the order given. The pair splits at its first colon: Kafka topic names
     * cannot contain one, so the queue part may.
     */
    public static Map<String, String> parse(String key, List<String> entries) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String raw : entries) {
            String entry = raw.trim();
            int colon = entry.indexOf(':');
            if (colon <= 0 || colon == entry.length() - 1) {
                throw new ConfigException(key, entry, "each entry must be topic:queue, as in orders:orders_q,payments:pay_q");
            }
            String topic = entry.substring(0, colon).trim();
            String queue = entry.substring(colon + 1).trim();
            String problem = QueueNames.problem(queue);
            if (problem != null) {
                throw new ConfigException(key, entry, problem);
            }
            if (map.put(topic, queue) != null) {
                throw new ConfigException(key, entry, "topic '" + topic + "' is mapped more than once");
            }
        }
        return Collections.unmodifiableMap(map);
    }

    public static ConfigDef.Validator validator() {
        return new ConfigDef.Validator() {
            @Override
            @SuppressWarnings("unchecked")
            public void ensureValid(String name, Object value) {
                parse(name, value == null ? List.of() : (List<String>) value);
            }

            @Override
            public String toString() {
                return "topic:queue,topic:queue,...";
            }
        };
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

import java.util.List;
import java.util.Map;

/**
 * The framework's ceiling for the drain benchmark: one Connect task that does what the plain
 * loop does ({@link PlainTableLoop}: a cursor over the plain table, 1,000 rows a fetch) and
 * returns each row as the record the PgQue connector writes for that event, key, value and six
 * headers. Nothing of a queue is done, so what it costs beyond the plain loop is Connect's own
 * work per record (conversion, offsets, bookkeeping), which any source connector pays. Settings:
 * {@code connection.url}, {@code table}, {@code topic}, {@code headers} (true or false).
 */
public final class PlainTableSourceConnector extends SourceConnector {

    private Map<String, String> settings;

    @Override
    public void start(Map<String, String> props) {
        for (String key : List.of(PlainTableSourceTask.URL, PlainTableSourceTask.TABLE, PlainTableSourceTask.TOPIC)) {
            if (props.get(key) == null || props.get(key).isBlank()) {
                throw new IllegalArgumentException("'" + key + "' is required");
            }
        }
        this.settings = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return PlainTableSourceTask.class;
    }

    /** One task whatever {@code tasks.max} says: one cursor reads the table in id order. */
    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return List.of(settings);
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    @Override
    public String version() {
        return "bench";
    }
}

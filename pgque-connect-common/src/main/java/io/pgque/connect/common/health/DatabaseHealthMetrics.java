/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.health;

import io.pgque.connect.common.metrics.PluginGauges;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.PluginMetrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * A task's {@link DatabaseHealth} as two gauges of Connect's plugin metrics (JMX
 * {@code kafka.connect:type=plugins,connector=...,task=...}), the same names in both connectors:
 * {@code database-connected} and {@code database-last-success-age-ms}.
 */
public final class DatabaseHealthMetrics implements AutoCloseable {

    public static final String CONNECTED = "database-connected";
    public static final String LAST_SUCCESS_AGE_MS = "database-last-success-age-ms";
    public static final String OUTAGE_MS = "database-outage-ms";

    private final PluginMetrics plugin;
    private final List<MetricName> registered = new ArrayList<>();

    private DatabaseHealthMetrics(PluginMetrics plugin) {
        this.plugin = plugin;
    }

    /** @param plugin the task's plugin metrics, or null where the worker has none (nothing is registered) */
    public static DatabaseHealthMetrics register(PluginMetrics plugin, DatabaseHealth health) {
        DatabaseHealthMetrics metrics = new DatabaseHealthMetrics(plugin);
        if (plugin != null) {
            metrics.gauge(CONNECTED, "1 while the task's connections to the database work, 0 from the first failure "
                    + "(a refused login, a broken connection, no connection within connection.timeout.ms) until the "
                    + "next success", () -> health.connected() ? 1L : 0L);
            metrics.gauge(LAST_SUCCESS_AGE_MS, "Milliseconds since the task last got a working connection from its "
                    + "pools (-1 before the first); grows while the task has nothing to do", health::lastSuccessAgeMs);
            metrics.gauge(OUTAGE_MS, "Milliseconds the current outage has lasted (0 while connected); the task fails "
                    + "once it exceeds connection.max.outage.ms, when that is set", health::outageMs);
        }
        return metrics;
    }

    private void gauge(String name, String description, java.util.function.LongSupplier value) {
        MetricName metric = plugin.metricName(name, description, new LinkedHashMap<>());
        if (PluginGauges.register(plugin, metric, (config, now) -> value.getAsLong())) {
            registered.add(metric);
        }
    }

    @Override
    public void close() {
        if (plugin != null) {
            PluginGauges.removeAll(plugin, registered);
        }
    }
}

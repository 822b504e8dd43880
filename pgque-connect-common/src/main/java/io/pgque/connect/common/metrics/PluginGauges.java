/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.metrics;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Registers a task's gauge even while the task's previous instance still holds the name: when a
 * restarted task starts before the old instance has finished stopping (Connect gives up waiting
 * after its graceful-stop timeout and starts the new one anyway), the old gauges are still
 * registered, and a plain registration would fail the new task over a metric. The name cannot
 * be taken over (only the instance that registered it may remove it), so the gauge is skipped
 * until the task's next start.
 */
public final class PluginGauges {

    private static final Logger log = LoggerFactory.getLogger(PluginGauges.class);

    private PluginGauges() {
    }

    /**
     * Removes what a task registered. Tolerates a worker that has closed the task's plugin
     * metrics already (it does once it gave up waiting for the task to stop): they are gone then.
     */
    public static void removeAll(PluginMetrics plugin, List<MetricName> metrics) {
        removeAll(plugin, metrics, List.of());
    }

    /** As {@link #removeAll(PluginMetrics, List)}, with the sensors the task added by name. */
    public static void removeAll(PluginMetrics plugin, List<MetricName> metrics, List<String> sensors) {
        try {
            for (MetricName metric : metrics) {
                plugin.removeMetric(metric);
            }
            for (String sensor : sensors) {
                plugin.removeSensor(sensor);
            }
        } catch (IllegalStateException closed) {
            log.debug("The task's plugin metrics were closed already: {}", closed.getMessage());
        }
    }

    /** @return whether the gauge was registered (and must be removed at close) */
    public static boolean register(PluginMetrics plugin, MetricName metric, Gauge<Long> gauge) {
        try {
            plugin.addMetric(metric, gauge);
            return true;
        } catch (IllegalArgumentException e) {
            log.warn("Metric {} {} is still registered by a previous instance of this task, which has not "
                    + "finished stopping; this instance goes without it", metric.name(), metric.tags());
            return false;
        }
    }
}

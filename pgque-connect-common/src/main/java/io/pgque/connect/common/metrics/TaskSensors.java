/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.metrics;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The sensors of one task instance, which only it records into and removes. Sensor names live in
 * the worker's one registry, not in the task's plugin metrics: {@code addSensor} hands a task the
 * sensor another task made under the same name, so every task's counts would go to every task's
 * metrics, and the first task to stop would remove them all. Each instance therefore names its
 * sensors with an id of its own; the metrics' names, which JMX and the reporters show (tagged
 * with the connector and the task by the worker), stay the plain ones.
 */
public final class TaskSensors {

    private static final Logger log = LoggerFactory.getLogger(TaskSensors.class);

    private final PluginMetrics plugin;
    // A random id rather than a counter: each plugin's class loader has its own statics.
    private final String instance = UUID.randomUUID().toString();
    private final List<String> names = new ArrayList<>();

    /** @param plugin the task's plugin metrics; not null */
    public TaskSensors(PluginMetrics plugin) {
        this.plugin = plugin;
    }

    /**
     * A sensor of this instance, its metrics added by {@code stats}. Metrics the task's previous
     * instance still holds (it has not finished stopping, see {@link PluginGauges}) cannot be
     * added: the sensor then records without them until the task's next start.
     */
    public Sensor sensor(String name, Consumer<Sensor> stats) {
        String unique = name + "-" + instance;
        Sensor sensor = plugin.addSensor(unique);
        names.add(unique);
        try {
            stats.accept(sensor);
        } catch (IllegalArgumentException held) {
            log.warn("A metric of sensor {} is still registered by a previous instance of this task, which has not "
                    + "finished stopping; this instance goes without it: {}", name, held.getMessage());
        }
        return sensor;
    }

    /** A sensor whose one metric sums what is recorded. */
    public Sensor counter(String sensor, String metric, String description) {
        return sensor(sensor, s -> s.add(name(metric, description), new CumulativeSum()));
    }

    /** A metric of the task, tagged only with what the worker adds (connector and task). */
    public MetricName name(String metric, String description) {
        return plugin.metricName(metric, description, new LinkedHashMap<>());
    }

    /** Removes this instance's sensors and their metrics; no error where the worker removed them already. */
    public void close() {
        PluginGauges.removeAll(plugin, List.of(), names);
        names.clear();
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.metrics;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Tasks' sensors in one worker-wide registry, as Connect keeps them: each task's plugin metrics
 * over the same {@link Metrics}, tagged with its connector and task.
 */
class TaskSensorsTest {

    private final Metrics registry = new Metrics();

    private PluginMetricsImpl plugin(String connector, int task) {
        return new PluginMetricsImpl(registry, Map.of("connector", connector, "task", Integer.toString(task)));
    }

    private Sensor records(TaskSensors sensors) {
        return sensors.counter("pgque-records", "records-total", "records");
    }

    private Double value(PluginMetricsImpl plugin) {
        KafkaMetric metric = registry.metric(plugin.metricName("records-total", "", new LinkedHashMap<>()));
        return metric == null ? null : (Double) metric.metricValue();
    }

    @Test
    void tasksNamingTheirSensorsAlikeCountApartAndStopApart() {
        PluginMetricsImpl a0 = plugin("a", 0);
        PluginMetricsImpl a1 = plugin("a", 1);
        PluginMetricsImpl b0 = plugin("b", 0);
        TaskSensors sensorsA0 = new TaskSensors(a0);
        TaskSensors sensorsA1 = new TaskSensors(a1);
        TaskSensors sensorsB0 = new TaskSensors(b0);
        records(sensorsA0).record(1);
        records(sensorsA1).record(2);
        records(sensorsB0).record(4);

        assertEquals(1.0, value(a0));
        assertEquals(2.0, value(a1));
        assertEquals(4.0, value(b0));

        sensorsA0.close();
        assertNull(value(a0), "the stopped task's metric is gone");
        assertEquals(2.0, value(a1), "the other task's stays");
        assertEquals(4.0, value(b0), "and the other connector's");
    }

    /** The worker closes a task's plugin metrics when it stops: that removes only that task's sensors. */
    @Test
    void theWorkerClosingOneTasksPluginMetricsLeavesTheOthers() throws Exception {
        PluginMetricsImpl a0 = plugin("a", 0);
        PluginMetricsImpl a1 = plugin("a", 1);
        TaskSensors sensorsA0 = new TaskSensors(a0);
        records(sensorsA0).record(1);
        records(new TaskSensors(a1)).record(2);

        a0.close();

        assertNull(value(plugin("a", 0)), "task 0's metric went with its plugin metrics");
        assertEquals(2.0, value(a1));
        assertDoesNotThrow(sensorsA0::close, "the task's own close after the worker's");
    }

    /**
     * A restarted task may start while its previous instance still stops and holds the metric:
     * the new instance starts without it rather than failing, and its close leaves the old one's.
     */
    @Test
    void anInstanceStartedBeforeItsPredecessorStoppedGoesWithoutTheHeldMetric() {
        TaskSensors old = new TaskSensors(plugin("a", 0));
        records(old).record(3);
        PluginMetricsImpl restarted = plugin("a", 0);
        TaskSensors fresh = new TaskSensors(restarted);

        Sensor sensor = assertDoesNotThrow(() -> records(fresh));
        sensor.record(5);
        assertEquals(3.0, value(restarted), "the metric is still the previous instance's");

        fresh.close();
        assertEquals(3.0, value(restarted), "and stays until that instance stops");
        old.close();
        assertNull(value(restarted));
    }

    @Test
    void metricNamesCarryOnlyTheWorkersTags() {
        MetricName name = new TaskSensors(plugin("a", 2)).name("records-total", "records");
        assertEquals(Map.of("connector", "a", "task", "2"), name.tags());
        assertEquals("plugins", name.group());
    }
}

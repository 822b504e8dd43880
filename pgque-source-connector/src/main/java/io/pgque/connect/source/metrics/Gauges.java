package io.pgque.connect.source.metrics;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers a task's gauge even while the task's previous instance still holds the name: when a
 * restarted task starts before the old instance has finished stopping (Connect gives up waiting
 * after its graceful-stop timeout, and starts the new one anyway), the old gauges are still
 * registered, and a plain registration would fail the new task over a metric.
 */
public final class Gauges {

    private static final Logger log = LoggerFactory.getLogger(Gauges.class);

    private Gauges() {
    }

    public static void register(PluginMetrics plugin, MetricName metric, Gauge<Long> gauge) {
        try {
            plugin.addMetric(metric, gauge);
        } catch (IllegalArgumentException e) {
            // The lingering instance removes the name when it finally closes; until the task's
            // next restart this gauge is then missing, which beats a failed task.
            log.warn("Metric {} {} is still registered by a previous instance of this task; replacing it",
                    metric.name(), metric.tags());
            plugin.removeMetric(metric);
            plugin.addMetric(metric, gauge);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.metrics;

import io.pgque.connect.common.metrics.PluginGauges;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;

/** Registers a task's gauge; see {@link PluginGauges}, which both connectors share. */
public final class Gauges {

    private Gauges() {
    }

    /** @return whether the gauge was registered (and must be removed at close) */
    public static boolean register(PluginMetrics plugin, MetricName metric, Gauge<Long> gauge) {
        return PluginGauges.register(plugin, metric, gauge);
    }
}

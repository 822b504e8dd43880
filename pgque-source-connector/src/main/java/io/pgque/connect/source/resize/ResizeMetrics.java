/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.resize;

import io.pgque.client.ResizeState;
import io.pgque.connect.common.metrics.PluginGauges;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * A task's view of resizing, as plugin metrics: the slot count in force, whether a resize is
 * draining, how many old slots still block it, and how many resizes have completed.
 */
public final class ResizeMetrics implements AutoCloseable {

    private final PluginMetrics plugin;
    private final List<MetricName> registered = new ArrayList<>();
    private volatile long slotCount;
    private volatile long draining;
    private volatile long blockedSlots;
    private volatile long resizeEpoch;

    /** @param plugin Connect's plugin metrics, or null where there are none (unit tests) */
    public ResizeMetrics(PluginMetrics plugin) {
        this.plugin = plugin;
        if (plugin == null) {
            return;
        }
        gauge("slot-count", "The slot count N this task reads under (the old N while a resize drains)",
                (config, now) -> slotCount);
        gauge("resize-draining", "1 while a resize of the consumer drains its old slots, else 0",
                (config, now) -> draining);
        gauge("resize-blocked-slots", "Old slots not yet at the seal tick (0 when not resizing)",
                (config, now) -> blockedSlots);
        gauge("resize-epoch", "How many resizes of the consumer have completed", (config, now) -> resizeEpoch);
    }

    void draining(ResizeState state) {
        slotCount = state.n();
        draining = 1;
        blockedSlots = state.blockers().size();
        resizeEpoch = state.resizeEpoch();
    }

    void stable(ResizeState state) {
        slotCount = state.n();
        draining = 0;
        blockedSlots = 0;
        resizeEpoch = state.resizeEpoch();
    }

    public long slotCount() {
        return slotCount;
    }

    public boolean isDraining() {
        return draining == 1;
    }

    @Override
    public void close() {
        if (plugin != null) {
            PluginGauges.removeAll(plugin, registered);
        }
    }

    private void gauge(String name, String description, Gauge<Long> gauge) {
        MetricName metric = plugin.metricName(name, description, new LinkedHashMap<>());
        if (PluginGauges.register(plugin, metric, gauge)) {
            registered.add(metric);
        }
    }
}

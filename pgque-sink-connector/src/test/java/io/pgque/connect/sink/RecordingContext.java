/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A worker context for driving a task directly, without a worker: it remembers what the task
 * asked of it (bad records reported, seeks, redelivery timeouts). The reporter, when there is
 * one, succeeds at once.
 */
public final class RecordingContext implements SinkTaskContext {

    public final List<SinkRecord> reported = new ArrayList<>();
    public final List<String> reasons = new ArrayList<>();
    public final Map<TopicPartition, Long> seeks = new HashMap<>();
    public final List<Long> timeouts = new ArrayList<>();
    private final boolean withReporter;
    private Metrics metrics;
    private PluginMetrics pluginMetrics;

    public RecordingContext(boolean withReporter) {
        this.withReporter = withReporter;
    }

    /** Gives the task plugin metrics in a registry of its own, as a worker does; see {@link #metric}. */
    public RecordingContext withPluginMetrics() {
        metrics = new Metrics();
        pluginMetrics = new PluginMetricsImpl(metrics, Map.of("connector", "test", "task", "0"));
        return this;
    }

    /** The value of one of the task's plugin metrics, by name. */
    public double metric(String name) {
        Object value = metrics.metric(pluginMetrics.metricName(name, "", new java.util.LinkedHashMap<>())).metricValue();
        return ((Number) value).doubleValue();
    }

    @Override
    public ErrantRecordReporter errantRecordReporter() {
        if (!withReporter) {
            return null;
        }
        return (record, error) -> {
            reported.add(record);
            reasons.add(error.getMessage());
            return CompletableFuture.completedFuture(null);
        };
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
        seeks.putAll(offsets);
    }

    @Override
    public void offset(TopicPartition tp, long offset) {
        seeks.put(tp, offset);
    }

    @Override
    public void timeout(long timeoutMs) {
        timeouts.add(timeoutMs);
    }

    @Override public Map<String, String> configs() { return Map.of(); }
    @Override public Set<TopicPartition> assignment() { return Set.of(); }
    @Override public void pause(TopicPartition... partitions) { }
    @Override public void resume(TopicPartition... partitions) { }
    @Override public void requestCommit() { }
    @Override public PluginMetrics pluginMetrics() { return pluginMetrics; }
}

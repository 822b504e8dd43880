/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.metrics;

import io.pgque.connect.source.resize.ResizeMetrics;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker that gave up waiting for a task to stop closes the task's plugin metrics while the
 * task's orderly stop still runs (a frozen database holds it): the task's own close must then
 * neither throw nor leave its metrics registered, or the stop thread dies before the pools close.
 */
class MetricsCloseTest {

    private final Metrics registry = new Metrics();

    @Test
    void closingAfterTheWorkerClosedThePluginMetricsIsNoError() throws Exception {
        PluginMetricsImpl plugin = new PluginMetricsImpl(registry, Map.of("connector", "c", "task", "0"));
        SourceMetrics source = new SourceMetrics(plugin, List.of(0, 1));
        ResizeMetrics resize = new ResizeMetrics(plugin);
        assertFalse(registry.metrics().isEmpty(), "the task's metrics are registered");

        plugin.close();

        assertDoesNotThrow(source::close);
        assertDoesNotThrow(resize::close);
        assertTrue(registry.metrics().keySet().stream().noneMatch(m -> "0".equals(m.tags().get("task"))),
                "the worker's close removed them all");
    }

    @Test
    void closingUnregistersEverythingTheTaskAdded() {
        PluginMetricsImpl plugin = new PluginMetricsImpl(registry, Map.of("connector", "c", "task", "1"));
        SourceMetrics source = new SourceMetrics(plugin, List.of(0));
        ResizeMetrics resize = new ResizeMetrics(plugin);

        source.close();
        resize.close();

        assertTrue(registry.metrics().keySet().stream().noneMatch(m -> "1".equals(m.tags().get("task"))),
                () -> "left registered: " + registry.metrics().keySet());
    }
}

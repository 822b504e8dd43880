/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.metrics;

import io.pgque.client.PgQue;
import io.pgque.client.QueueInfo;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Two gauges of a queue, sampled from {@code pgque.get_queue_info} on a thread of their own:
 * {@code queue-unticked-events}, the events after the queue's last tick, which no consumer can
 * read until the next tick, and {@code queue-ticker-lag-ms}, that tick's age. Both growing means
 * nothing ticks the queue. Tagged {@code queue}; -1 until the first sample, and while the
 * database cannot be asked.
 */
public final class QueueGauges implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(QueueGauges.class);

    public static final String UNTICKED_EVENTS = "queue-unticked-events";
    public static final String TICKER_LAG_MS = "queue-ticker-lag-ms";

    private final PluginMetrics plugin;
    private final List<MetricName> registered = new ArrayList<>();
    private final ScheduledExecutorService sampler;
    private volatile long unticked = -1;
    private volatile long tickerLagMs = -1;

    private QueueGauges(PluginMetrics plugin, ScheduledExecutorService sampler) {
        this.plugin = plugin;
        this.sampler = sampler;
    }

    /**
     * Registers the gauges and starts sampling every {@code every}; nothing at all where there
     * are no plugin metrics ({@code plugin} null).
     */
    public static QueueGauges start(PluginMetrics plugin, DataSource dataSource, String queue, Duration every,
                                    String threadName) {
        if (plugin == null) {
            return new QueueGauges(null, null);
        }
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        QueueGauges gauges = new QueueGauges(plugin, sampler);
        gauges.gauge(UNTICKED_EVENTS, "Events in the queue after its last tick, which no consumer can read until the "
                + "next tick (-1: not sampled yet)", queue, () -> gauges.unticked);
        gauges.gauge(TICKER_LAG_MS, "Age of the queue's last tick, in milliseconds (-1: not sampled yet)", queue,
                () -> gauges.tickerLagMs);
        sampler.scheduleWithFixedDelay(() -> gauges.sample(dataSource, queue), 0, every.toMillis(), TimeUnit.MILLISECONDS);
        return gauges;
    }

    private void sample(DataSource dataSource, String queue) {
        try {
            Optional<QueueInfo> info = PgQue.using(dataSource).queues().info(queue);
            unticked = info.map(QueueInfo::newEvents).map(Long::longValue).orElse(-1L);
            tickerLagMs = info.map(QueueInfo::tickerLag).map(Duration::toMillis).orElse(-1L);
        } catch (RuntimeException e) {
            unticked = -1;
            tickerLagMs = -1;
            log.debug("Could not sample queue {}: {}", queue, e.getMessage());
        }
    }

    private void gauge(String name, String description, String queue, LongSupplier value) {
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        tags.put("queue", queue);
        MetricName metric = plugin.metricName(name, description, tags);
        if (PluginGauges.register(plugin, metric, (config, now) -> value.getAsLong())) {
            registered.add(metric);
        }
    }

    /** Stops sampling (a sample stuck on a hung server ends when the pool aborts its connection) and unregisters. */
    @Override
    public void close() {
        if (sampler != null) {
            sampler.shutdownNow();
        }
        if (plugin != null) {
            PluginGauges.removeAll(plugin, registered);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.metrics;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.metrics.stats.WindowedCount;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * A sink task's numbers, published through Connect's plugin metrics: JMX group
 * {@code kafka.connect:type=plugins}, tagged with the connector and the task by the worker, and
 * any configured metrics reporter. The names are listed in {@code docs/sink.md}.
 */
public final class SinkMetrics implements SinkEvents {

    private final PluginMetrics plugin;
    private final List<String> sensorNames = new ArrayList<>();
    private final Sensor written;
    private final Sensor puts;
    private final Sensor deduped;
    private final Sensor deadLetters;
    private final Sensor transientFailures;
    private final Sensor retries;
    private final Sensor redeliveries;
    private final Sensor fenced;
    // dedup hits of the open transaction: they count once it commits
    private int pendingDedupHits;

    /** @param plugin the task's plugin metrics (SinkTaskContext::pluginMetrics); not null */
    public SinkMetrics(PluginMetrics plugin) {
        this.plugin = plugin;
        written = sensor("pgque-sink-events-written");
        written.add(new Meter(name("events-written-rate", "Events per second appended to PgQue queues (committed)"),
                name("events-written-total", "Events appended to PgQue queues (committed; dedup hits and "
                        + "refused records not included)")));
        puts = sensor("pgque-sink-puts");
        // counted per put (WindowedCount), not summed: the sensor records each put's time
        puts.add(new Meter(new WindowedCount(), name("put-rate", "Puts per second (puts without records not counted)"),
                name("put-total", "Puts with at least one record")));
        puts.add(name("put-time-avg-ms", "Average time of a put, in milliseconds"), new Avg());
        puts.add(name("put-time-max-ms", "Longest put in the metrics window, in milliseconds"), new Max());
        deduped = counter("pgque-sink-dedup-hits", "dedup-hits-total",
                "Events not appended because their dedup key was already used in the window");
        deadLetters = counter("pgque-sink-dead-letters", "dead-letter-records-total",
                "Records sent to the errant record reporter (dead letter queue and/or error log)");
        transientFailures = counter("pgque-sink-transient-failures", "transient-failures-total",
                "Writes that failed for a reason that may pass (lost connection, serialization failure, ...)");
        retries = counter("pgque-sink-write-retries", "write-retries-total",
                "Writes retried by the task after a transient failure");
        redeliveries = counter("pgque-sink-redeliveries", "redeliveries-requested-total",
                "Puts handed back to the worker for a later redelivery once retries ran out");
        fenced = counter("pgque-sink-offsets-fenced", "offset-fencing-refusals-total",
                "Exactly-once: offset moves refused because another writer moved the stored offsets first");
    }

    @Override
    public void putCompleted(long nanos) {
        puts.record(nanos / 1e6);
    }

    @Override
    public void dedupHits(int events) {
        pendingDedupHits += events;
    }

    @Override
    public void transactionCommitted(int events) {
        written.record(events - pendingDedupHits);
        if (pendingDedupHits > 0) {
            deduped.record(pendingDedupHits);
        }
        pendingDedupHits = 0;
    }

    @Override
    public void transactionRolledBack() {
        pendingDedupHits = 0;
    }

    @Override
    public void deadLettered() {
        deadLetters.record(1);
    }

    @Override
    public void transientFailure(boolean retrying) {
        transientFailures.record(1);
        (retrying ? retries : redeliveries).record(1);
    }

    @Override
    public void offsetsFenced() {
        fenced.record(1);
    }

    /** Unregisters everything this task added to the plugin metrics. */
    public void close() {
        for (String sensor : sensorNames) {
            plugin.removeSensor(sensor);
        }
    }

    private Sensor counter(String sensorName, String metric, String description) {
        Sensor sensor = sensor(sensorName);
        sensor.add(name(metric, description), new CumulativeSum());
        return sensor;
    }

    private Sensor sensor(String name) {
        sensorNames.add(name);
        return plugin.addSensor(name);
    }

    private MetricName name(String name, String description) {
        return plugin.metricName(name, description, new LinkedHashMap<>());
    }
}

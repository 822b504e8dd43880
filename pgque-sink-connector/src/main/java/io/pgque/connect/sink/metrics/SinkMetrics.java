/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.metrics;

import io.pgque.connect.common.metrics.TaskSensors;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.metrics.stats.WindowedCount;

/**
 * A sink task's numbers, published through Connect's plugin metrics: JMX group
 * {@code kafka.connect:type=plugins}, tagged with the connector and the task by the worker, and
 * any configured metrics reporter. The names are listed in {@code docs/sink.md}. They count this
 * task instance's work only, from its start.
 */
public final class SinkMetrics implements SinkEvents {

    private final TaskSensors sensors;
    private final Sensor written;
    private final Sensor puts;
    private final Sensor deduped;
    private final Sensor deadLetters;
    private final Sensor transientFailures;
    private final Sensor retries;
    private final Sensor redeliveries;
    private final Sensor fenced;
    private final Sensor held;
    // dedup hits and held events of the open transaction: they count once it commits
    private int pendingDedupHits;
    private int pendingHeld;

    /** @param plugin the task's plugin metrics (SinkTaskContext::pluginMetrics); not null */
    public SinkMetrics(PluginMetrics plugin) {
        sensors = new TaskSensors(plugin);
        written = sensors.sensor("pgque-sink-events-written", s -> s.add(new Meter(
                sensors.name("events-written-rate", "Events per second appended to PgQue queues (committed)"),
                sensors.name("events-written-total", "Events appended to PgQue queues (committed; held delayed events "
                        + "included, dedup hits and refused records not)"))));
        puts = sensors.sensor("pgque-sink-puts", s -> {
            // counted per put (WindowedCount), not summed: the sensor records each put's time
            s.add(new Meter(new WindowedCount(),
                    sensors.name("put-rate", "Puts per second (puts without records not counted)"),
                    sensors.name("put-total", "Puts with at least one record")));
            s.add(sensors.name("put-time-avg-ms", "Average time of a put, in milliseconds"), new Avg());
            s.add(sensors.name("put-time-max-ms", "Longest put in the metrics window, in milliseconds"), new Max());
        });
        deduped = sensors.counter("pgque-sink-dedup-hits", "dedup-hits-total",
                "Events not appended because their dedup key was already used in the window");
        deadLetters = sensors.counter("pgque-sink-dead-letters", "dead-letter-records-total",
                "Records sent to the errant record reporter (dead letter queue and/or error log)");
        transientFailures = sensors.counter("pgque-sink-transient-failures", "transient-failures-total",
                "Writes that failed for a reason that may pass (lost connection, serialization failure, ...)");
        retries = sensors.counter("pgque-sink-write-retries", "write-retries-total",
                "Writes retried by the task after a transient failure");
        redeliveries = sensors.counter("pgque-sink-redeliveries", "redeliveries-requested-total",
                "Puts handed back to the worker for a later redelivery once retries ran out");
        fenced = sensors.counter("pgque-sink-offsets-fenced", "offset-fencing-refusals-total",
                "Exactly-once: offset moves refused because another writer moved the stored offsets first");
        held = sensors.counter("pgque-sink-events-held", "events-held-total",
                "Events written held until their due time (pgque.delay.header, pgque.delay.ms); "
                        + "counted in events-written-total too");
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
    public void eventsHeld(int events) {
        pendingHeld += events;
    }

    @Override
    public void transactionCommitted(int events) {
        written.record(events - pendingDedupHits);
        if (pendingDedupHits > 0) {
            deduped.record(pendingDedupHits);
        }
        if (pendingHeld > 0) {
            held.record(pendingHeld);
        }
        pendingDedupHits = 0;
        pendingHeld = 0;
    }

    @Override
    public void transactionRolledBack() {
        pendingDedupHits = 0;
        pendingHeld = 0;
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
        sensors.close();
    }
}

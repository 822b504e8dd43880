/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.metrics;

import io.pgque.connect.common.metrics.PluginGauges;
import io.pgque.connect.common.metrics.TaskSensors;
import io.pgque.connect.source.record.ReaderId;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Meter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A task's numbers: records and batches per second, lease takeovers and losses, and per slot the
 * pending events and lag last sampled from the engine. Published through Connect's plugin
 * metrics (JMX and any configured reporter, tagged with the connector and task; this task
 * instance's work only, from its start) and kept as plain counters for the periodic log line.
 */
public final class SourceMetrics implements StreamEvents {

    private final LongAdder recordsEmitted = new LongAdder();
    private final LongAdder batchesAcked = new LongAdder();
    private final LongAdder recordsAcked = new LongAdder();
    private final LongAdder leasesAcquired = new LongAdder();
    private final LongAdder leasesLost = new LongAdder();
    private final LongAdder batchesSkipped = new LongAdder();
    private final LongAdder batchesReadAhead = new LongAdder();
    private final LongAdder batchesSentAhead = new LongAdder();
    private final LongAdder batchesReadAheadWithoutScan = new LongAdder();
    private final LongAdder eventsDeadLettered = new LongAdder();
    private final LongAdder eventsPaused = new LongAdder();
    /** The task's slots' blocked keys (pgque.failure.policy=pause), as last sampled. */
    private volatile BlockedKeysSample blocked = BlockedKeysSample.NONE;
    private final Map<Integer, SlotSample> samples = new ConcurrentHashMap<>();
    private final PluginMetrics plugin;
    private final List<MetricName> registered = new ArrayList<>();
    private final TaskSensors sensors;
    private final Sensor recordsSensor;
    private final Sensor batchesSensor;
    private final Sensor acquiredSensor;
    private final Sensor lostSensor;
    private final Sensor skippedSensor;
    private final Sensor readAheadSensor;
    private final Sensor withoutScanSensor;
    private final Sensor sentAheadSensor;
    private final Sensor deadLetteredSensor;
    private final Sensor pausedSensor;

    /** @param plugin Connect's plugin metrics, or null where there are none (unit tests) */
    public SourceMetrics(PluginMetrics plugin, List<Integer> slots) {
        this.plugin = plugin;
        for (int slot : slots) {
            samples.put(slot, SlotSample.UNKNOWN);
        }
        if (plugin == null) {
            sensors = null;
            recordsSensor = batchesSensor = acquiredSensor = lostSensor = skippedSensor = readAheadSensor = sentAheadSensor = null;
            withoutScanSensor = null;
            deadLetteredSensor = pausedSensor = null;
            return;
        }
        sensors = new TaskSensors(plugin);
        recordsSensor = sensors.sensor("pgque-records", s -> s.add(new Meter(
                sensors.name("records-acked-rate", "Records per second acked to PgQue after Kafka took them"),
                sensors.name("records-acked-total", "Records acked to PgQue after Kafka took them"))));
        batchesSensor = sensors.sensor("pgque-batches", s -> s.add(new Meter(
                sensors.name("batches-acked-rate", "Batches per second acked to PgQue"),
                sensors.name("batches-acked-total", "Batches acked to PgQue"))));
        acquiredSensor = sensors.counter("pgque-lease-acquired", "lease-takeovers-total",
                "Slot leases this task took (each raised the slot's epoch)");
        lostSensor = sensors.counter("pgque-lease-lost", "lease-lost-total",
                "Slot leases this task found taken by another worker");
        skippedSensor = sensors.counter("pgque-batches-skipped", "batches-skipped-total",
                "Batches found already in Kafka after a claim (exactly-once) and acked without being sent again");
        readAheadSensor = sensors.counter("pgque-batches-read-ahead", "batches-read-ahead-total",
                "Batches read while the slot's previous batch was on its way to Kafka, and opened as read");
        withoutScanSensor = sensors.counter("pgque-batches-read-ahead-without-scan",
                "batches-read-ahead-without-scan-total", "Batches read ahead from the scan another slot of the task "
                        + "ran over the same window, at no scan of their own");
        sentAheadSensor = sensors.counter("pgque-batches-sent-ahead", "batches-sent-ahead-total",
                "Batches read ahead whose first records went to Kafka before the slot's previous batch was acked "
                        + "(pgque.batch.send.ahead)");
        deadLetteredSensor = sensors.counter("pgque-events-dead-lettered", "events-dead-lettered-total",
                "Events moved to the queue's dead letters because their payload could not be converted "
                        + "(errors.tolerance=all)");
        pausedSensor = sensors.counter("pgque-events-paused", "events-paused-total",
                "Events that could not become records and paused their key (pgque.failure.policy=pause)");
        gauge("blocked-keys", "Keys of the task's slots that a paused event holds back (pgque.failure.policy=pause)",
                null, (config, now) -> blocked.keys());
        gauge("oldest-block-age-ms", "How long the longest-blocked key of the task's slots has been blocked, in "
                + "milliseconds; 0 when none is", null, (config, now) -> blocked.oldestAgeMillis(now));
        for (int slot : slots) {
            gauge("slot-pending-events", "Events waiting for the slot, as the engine estimates them", slot,
                    (config, now) -> samples.getOrDefault(slot, SlotSample.UNKNOWN).pendingEvents());
            gauge("slot-lag-ms", "Age of the last tick the slot has finished, in milliseconds", slot,
                    (config, now) -> samples.getOrDefault(slot, SlotSample.UNKNOWN).lagMillis());
        }
    }

    @Override
    public void leaseAcquired(ReaderId reader) {
        if (!reader.leased()) {
            return;
        }
        leasesAcquired.increment();
        record(acquiredSensor, 1);
    }

    @Override
    public void leaseLost(ReaderId reader) {
        if (!reader.leased()) {
            return; // a cooperative member's batch taken over: no lease was lost
        }
        leasesLost.increment();
        record(lostSensor, 1);
    }

    @Override
    public void batchEmitted(ReaderId reader, int records) {
        recordsEmitted.add(records);
    }

    @Override
    public void batchAcked(ReaderId reader, int records) {
        batchesAcked.increment();
        recordsAcked.add(records);
        record(batchesSensor, 1);
        record(recordsSensor, records);
    }

    @Override
    public void batchSkipped(ReaderId reader, int events) {
        batchesSkipped.increment();
        record(skippedSensor, 1);
    }

    @Override
    public void batchReadAhead(ReaderId reader) {
        batchesReadAhead.increment();
        record(readAheadSensor, 1);
    }

    @Override
    public void batchReadAheadWithoutScan(ReaderId reader) {
        batchesReadAheadWithoutScan.increment();
        record(withoutScanSensor, 1);
    }

    @Override
    public void batchSentAhead(ReaderId reader) {
        batchesSentAhead.increment();
        record(sentAheadSensor, 1);
    }

    /** An event was moved to the dead letters as unreadable; called on the poll thread. */
    public void eventDeadLettered() {
        eventsDeadLettered.increment();
        record(deadLetteredSensor, 1);
    }

    /** An event was paused (its key blocked) because it could not become a record; called on the poll thread. */
    public void eventPaused() {
        eventsPaused.increment();
        record(pausedSensor, 1);
    }

    void blockedKeysSampled(BlockedKeysSample sample) {
        blocked = sample;
    }

    /** The task's slots' blocked keys as last sampled. */
    public BlockedKeysSample blockedKeys() {
        return blocked;
    }

    public long eventsPaused() {
        return eventsPaused.sum();
    }

    void sampled(int slot, SlotSample sample) {
        samples.put(slot, sample);
    }

    /** Forgets the samples of slots not in {@code slots}: the task reads another slot set now (a resize). */
    public void keepSamplesOf(java.util.Collection<Integer> slots) {
        samples.keySet().retainAll(slots);
    }

    /** The latest sample of every slot, by slot number. */
    public Map<Integer, SlotSample> samples() {
        return new TreeMap<>(samples);
    }

    public long recordsEmitted() {
        return recordsEmitted.sum();
    }

    public long recordsAcked() {
        return recordsAcked.sum();
    }

    public long batchesAcked() {
        return batchesAcked.sum();
    }

    public long leasesAcquired() {
        return leasesAcquired.sum();
    }

    public long leasesLost() {
        return leasesLost.sum();
    }

    public long batchesSkipped() {
        return batchesSkipped.sum();
    }

    public long batchesReadAhead() {
        return batchesReadAhead.sum();
    }

    public long batchesReadAheadWithoutScan() {
        return batchesReadAheadWithoutScan.sum();
    }

    public long batchesSentAhead() {
        return batchesSentAhead.sum();
    }

    public long eventsDeadLettered() {
        return eventsDeadLettered.sum();
    }

    /** Unregisters everything this task added to the plugin metrics. */
    public void close() {
        if (plugin == null) {
            return;
        }
        PluginGauges.removeAll(plugin, registered);
        sensors.close();
    }

    /** A gauge of the task, or with {@code slot} not null of one of its slots (tag {@code slot}). */
    private void gauge(String name, String description, Integer slot, Gauge<Long> gauge) {
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        if (slot != null) {
            tags.put("slot", Integer.toString(slot));
        }
        MetricName metric = plugin.metricName(name, description, tags);
        if (PluginGauges.register(plugin, metric, gauge)) {
            registered.add(metric);
        }
    }

    private static void record(Sensor sensor, double value) {
        if (sensor != null) {
            sensor.record(value);
        }
    }
}

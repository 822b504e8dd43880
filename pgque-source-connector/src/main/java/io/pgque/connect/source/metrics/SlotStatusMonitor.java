/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.metrics;

import io.pgque.client.ConsumerInfo;
import io.pgque.client.PgQue;
import io.pgque.client.SlotConsumer;
import io.pgque.client.SlotStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Samples the task's slots from the engine ({@code partition_slot_status} for pending events and
 * lease, {@code get_consumer_info} for lag) on a thread of its own, so monitoring never slows
 * the poll loop, and writes one INFO line per log interval with the slots and the throughput
 * since the previous line. Lag matters here: one slot that falls behind holds back table
 * rotation for the whole queue.
 */
public final class SlotStatusMonitor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SlotStatusMonitor.class);

    private final PgQue pgque;
    private final String queue;
    private final String consumer;
    private final int slotCount;
    private final Set<Integer> slots;
    private final SourceMetrics metrics;
    private final ScheduledExecutorService scheduler;
    /** Whether the samples include the slots' blocked keys (pgque.failure.policy=pause). */
    private final boolean blockedKeys;
    private long lastLogNanos = System.nanoTime();
    private long lastRecords;
    private long lastBatches;
    private boolean failing;

    private SlotStatusMonitor(PgQue pgque, String queue, String consumer, int slotCount, Set<Integer> slots,
                              SourceMetrics metrics, ScheduledExecutorService scheduler, boolean blockedKeys) {
        this.pgque = pgque;
        this.blockedKeys = blockedKeys;
        this.queue = queue;
        this.consumer = consumer;
        this.slotCount = slotCount;
        this.slots = slots;
        this.metrics = metrics;
        this.scheduler = scheduler;
    }

    /**
     * @param logEvery    zero for no log line (the samples still feed the metrics)
     * @param blockedKeys whether to sample the slots' blocked keys too (the pause failure policy)
     */
    public static SlotStatusMonitor start(PgQue pgque, String queue, String consumer, int slotCount,
                                          Set<Integer> slots, SourceMetrics metrics, String threadName,
                                          Duration sampleEvery, Duration logEvery, boolean blockedKeys) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        SlotStatusMonitor monitor = new SlotStatusMonitor(pgque, queue, consumer, slotCount, slots, metrics, scheduler,
                blockedKeys);
        scheduler.scheduleWithFixedDelay(monitor::sample, 0, sampleEvery.toMillis(), TimeUnit.MILLISECONDS);
        if (!logEvery.isZero()) {
            scheduler.scheduleWithFixedDelay(monitor::logLine, logEvery.toMillis(), logEvery.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
        return monitor;
    }

    void sample() {
        try {
            Map<String, ConsumerInfo> bySubscription = new HashMap<>();
            for (ConsumerInfo info : pgque.queues().consumerInfo(queue)) {
                bySubscription.put(info.consumerName(), info);
            }
            SlotConsumer slotConsumer = pgque.slotConsumer(queue, consumer, slotCount, "monitor");
            List<SlotStatus> statuses = slotConsumer.status();
            for (SlotStatus status : statuses) {
                if (!slots.contains(status.slot())) {
                    continue;
                }
                ConsumerInfo info = bySubscription.get(consumer + "#" + status.slot() + "/" + slotCount);
                long lag = info == null || info.lag() == null ? -1 : info.lag().toMillis();
                long pending = status.pendingEvents() == null ? -1 : status.pendingEvents();
                metrics.sampled(status.slot(), new SlotSample(pending, lag, status.leaseOwner(), status.epoch()));
            }
            if (blockedKeys) {
                metrics.blockedKeysSampled(BlockedKeysSample.of(slotConsumer.blockedKeys(), slots));
            }
            failing = false;
        } catch (RuntimeException e) {
            if (!failing) {
                log.warn("Could not read slot status of {} on queue {}", consumer, queue, e);
                failing = true;
            }
        }
    }

    void logLine() {
        long now = System.nanoTime();
        double seconds = Math.max((now - lastLogNanos) / 1e9, 0.001);
        long records = metrics.recordsAcked();
        long batches = metrics.batchesAcked();
        StringJoiner perSlot = new StringJoiner(", ");
        metrics.samples().forEach((slot, s) -> perSlot.add(slot + ": pending=" + s.pendingEvents() + " lag="
                + s.lagMillis() + "ms epoch=" + s.epoch() + (s.leaseOwner() == null ? " (unleased)" : "")));
        BlockedKeysSample blocked = metrics.blockedKeys();
        log.info("Queue {} consumer {}: {} records/s, {} batches/s, leases taken {} lost {}; slots [{}]{}",
                queue, consumer, String.format("%.1f", (records - lastRecords) / seconds),
                String.format("%.2f", (batches - lastBatches) / seconds), metrics.leasesAcquired(),
                metrics.leasesLost(), perSlot, blocked.keys() == 0 ? "" : "; " + blocked.keys()
                        + " blocked key(s), the oldest for " + blocked.oldestAgeMillis(System.currentTimeMillis()) + " ms");
        lastLogNanos = now;
        lastRecords = records;
        lastBatches = batches;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Checks what arrives on the output topic against what was sent: every event once, and per
 * tenant in send order. Also collects the end-to-end latency of each first delivery.
 *
 * <p>Order is judged by each tenant's {@code seq}: an event whose {@code seq} is below one
 * already delivered for its tenant arrived out of order. A {@code seq} seen before is a duplicate,
 * which at-least-once delivery allows after a failure (a replayed suffix); it does not count as
 * out of order.
 *
 * <p>Written by the output consumer's thread, read by the progress reporter: synchronized.
 */
public final class OutputVerifier {

    /** Progress and verdict at one moment. */
    public record Snapshot(long delivered, long duplicates, long outOfOrder, int tenantsSeen,
                           long firstReceiveMicros, long lastReceiveMicros) {
    }

    private final String run;
    private final Map<String, BitSet> seenByTenant = new HashMap<>();
    private final Map<String, Long> highestByTenant = new HashMap<>();
    private final Latencies latencies = new Latencies();
    private final Deliveries deliveries = new Deliveries();
    private long delivered;
    private long duplicates;
    private long outOfOrder;
    private long firstReceiveMicros;
    private long lastReceiveMicros;

    /** @param run only events of this run are checked; leftovers of earlier runs are ignored */
    public OutputVerifier(String run) {
        this.run = run;
    }

    /** @param eventId the event's id in the queue, when the record carries it (for the latency by stage) */
    public synchronized void accept(LifecycleEvent event, long receivedAtMicros, OptionalLong eventId) {
        if (!run.equals(event.run())) {
            return;
        }
        if (event.seq() < 0 || event.seq() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("seq out of range: " + event);
        }
        BitSet seen = seenByTenant.computeIfAbsent(event.tenant(), t -> new BitSet());
        int seq = (int) event.seq();
        if (seen.get(seq)) {
            duplicates++;
            return;
        }
        seen.set(seq);
        long highest = highestByTenant.getOrDefault(event.tenant(), -1L);
        if (seq < highest) {
            outOfOrder++;
        } else {
            highestByTenant.put(event.tenant(), (long) seq);
        }
        delivered++;
        latencies.add(Math.max(0, receivedAtMicros - event.sentAtMicros()));
        eventId.ifPresent(id -> deliveries.add(id, event.sentAtMicros(), receivedAtMicros));
        if (firstReceiveMicros == 0) {
            firstReceiveMicros = receivedAtMicros;
        }
        lastReceiveMicros = receivedAtMicros;
    }

    public synchronized Snapshot snapshot() {
        return new Snapshot(delivered, duplicates, outOfOrder, seenByTenant.size(), firstReceiveMicros, lastReceiveMicros);
    }

    /** First deliveries that name their event id, for {@link Deliveries#stages}. */
    public synchronized Deliveries deliveries() {
        return deliveries.copy();
    }

    /** The latency percentile {@code p} in microseconds, or -1 before the first delivery. */
    public synchronized long latencyPercentile(double p) {
        return latencies.percentile(p).orElse(-1);
    }
}

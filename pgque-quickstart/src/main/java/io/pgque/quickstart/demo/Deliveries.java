/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

import io.pgque.quickstart.report.QueuedAt;
import io.pgque.quickstart.report.Stages;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * First deliveries with their queue event id, send time and receive time: enough to split the
 * end-to-end latency at the queue, once the database says when each event was written into it.
 */
public final class Deliveries {

    private long[] ids = new long[1024];
    private long[] sentMicros = new long[1024];
    private long[] receivedMicros = new long[1024];
    private int size;

    void add(long id, long sent, long received) {
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, size * 2);
            sentMicros = Arrays.copyOf(sentMicros, size * 2);
            receivedMicros = Arrays.copyOf(receivedMicros, size * 2);
        }
        ids[size] = id;
        sentMicros[size] = sent;
        receivedMicros[size] = received;
        size++;
    }

    Deliveries copy() {
        Deliveries copy = new Deliveries();
        copy.ids = Arrays.copyOf(ids, size);
        copy.sentMicros = Arrays.copyOf(sentMicros, size);
        copy.receivedMicros = Arrays.copyOf(receivedMicros, size);
        copy.size = size;
        return copy;
    }

    public long[] ids() {
        return Arrays.copyOf(ids, size);
    }

    /**
     * The latency by stage: send to the sink's write (the time PostgreSQL gave the event), from
     * there to the tick that made it readable, and from that tick to the read on the output topic.
     *
     * @param queuedAt event id to the times the database gives it, for the ids asked
     * @return empty when no delivery could be matched with its write
     */
    public Optional<Stages> stages(Function<long[], Map<Long, QueuedAt>> queuedAt) {
        Map<Long, QueuedAt> queued = queuedAt.apply(ids());
        Latencies intoQueue = new Latencies();
        Latencies waitForTick = new Latencies();
        Latencies tickToOutput = new Latencies();
        for (int i = 0; i < size; i++) {
            QueuedAt at = queued.get(ids[i]);
            if (at == null) {
                continue;
            }
            intoQueue.add(Math.max(0, at.writtenMicros() - sentMicros[i]));
            if (at.tickedMicros() >= 0) {
                waitForTick.add(Math.max(0, at.tickedMicros() - at.writtenMicros()));
                tickToOutput.add(Math.max(0, receivedMicros[i] - at.tickedMicros()));
            }
        }
        if (intoQueue.count() == 0) {
            return Optional.empty();
        }
        return Optional.of(new Stages(part(intoQueue), part(waitForTick), part(tickToOutput)));
    }

    private static Stages.Part part(Latencies l) {
        return new Stages.Part(l.percentile(50).orElse(-1), l.percentile(99).orElse(-1));
    }
}

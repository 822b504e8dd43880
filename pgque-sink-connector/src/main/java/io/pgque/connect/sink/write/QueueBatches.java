/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The events of one put, grouped by queue and cut into statements of at most
 * {@code pgque.batch.max.records} events. Grouping keeps the input order inside each queue;
 * since one topic goes to exactly one queue, each Kafka partition's records stay in offset
 * order, which is what per-key order in the queue rests on.
 */
public final class QueueBatches {

    /** One statement's worth of events for one queue, in input order. */
    public record Chunk(String queue, List<PendingEvent> events) {
        public Chunk {
            events = List.copyOf(events);
        }
    }

    private final List<Chunk> chunks;
    private final int eventCount;

    private QueueBatches(List<Chunk> chunks, int eventCount) {
        this.chunks = chunks;
        this.eventCount = eventCount;
    }

    /** Groups {@code events} (in the order Connect delivered them) by queue, in chunks of at most {@code maxPerChunk}. */
    public static QueueBatches of(List<PendingEvent> events, int maxPerChunk) {
        if (maxPerChunk < 1) {
            throw new IllegalArgumentException("maxPerChunk must be at least 1");
        }
        Map<String, List<PendingEvent>> byQueue = new LinkedHashMap<>();
        for (PendingEvent event : events) {
            byQueue.computeIfAbsent(event.draft().queue(), q -> new ArrayList<>()).add(event);
        }
        List<Chunk> chunks = new ArrayList<>();
        byQueue.forEach((queue, list) -> {
            for (int from = 0; from < list.size(); from += maxPerChunk) {
                chunks.add(new Chunk(queue, list.subList(from, Math.min(list.size(), from + maxPerChunk))));
            }
        });
        return new QueueBatches(Collections.unmodifiableList(chunks), events.size());
    }

    public List<Chunk> chunks() {
        return chunks;
    }

    /** The distinct queues, in order of first appearance. */
    public List<String> queues() {
        return chunks.stream().map(Chunk::queue).distinct().toList();
    }

    public int eventCount() {
        return eventCount;
    }
}

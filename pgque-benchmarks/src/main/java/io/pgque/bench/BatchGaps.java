/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a run's wall time stood still between batches: per slot, the broker's append stamps of
 * each batch's first and last record (by the {@code pgque.slot} and {@code pgque.batch.id}
 * headers), and the time from one batch's last append to the next batch's first. A slot acks a
 * batch in PostgreSQL and opens its next one only once Kafka acknowledged the last record, so
 * with one slot nothing is written in between: these gaps are what the batch boundary costs.
 */
final class BatchGaps {

    private static final String SLOT = "pgque.slot";
    private static final String BATCH = "pgque.batch.id";

    /** Per slot, per batch id: first and last append stamp. */
    private final Map<String, TreeMap<Long, long[]>> batches = new HashMap<>();

    void add(ConsumerRecord<?, ?> record) {
        String batch = text(record.headers().lastHeader(BATCH));
        if (batch == null) {
            return;
        }
        String slot = text(record.headers().lastHeader(SLOT));
        long[] span = batches.computeIfAbsent(slot == null ? "-" : slot, s -> new TreeMap<>())
                .computeIfAbsent(Long.parseLong(batch), b -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
        span[0] = Math.min(span[0], record.timestamp());
        span[1] = Math.max(span[1], record.timestamp());
    }

    /** One line: boundaries, their total and median gap, and the total's share of {@code span}. */
    String summary(AppendSpan span) {
        List<Long> gaps = new ArrayList<>();
        for (TreeMap<Long, long[]> slot : batches.values()) {
            long[] previous = null;
            for (long[] batch : slot.values()) {
                if (previous != null) {
                    gaps.add(Math.max(0, batch[0] - previous[1]));
                }
                previous = batch;
            }
        }
        if (gaps.isEmpty()) {
            return "batch boundaries: none";
        }
        Collections.sort(gaps);
        long total = gaps.stream().mapToLong(Long::longValue).sum();
        return String.format(Locale.ROOT, "batch boundaries: %d on %d slot(s), from a batch's last append to the "
                        + "slot's next batch's first: total %d ms (%.0f%% of the run), median %d ms, max %d ms",
                gaps.size(), batches.size(), total, 100.0 * total / (span.seconds() * 1000),
                gaps.get(gaps.size() / 2), gaps.get(gaps.size() - 1));
    }

    private static String text(Header header) {
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}

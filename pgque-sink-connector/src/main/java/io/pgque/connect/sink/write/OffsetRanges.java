/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import org.apache.kafka.connect.sink.SinkRecord;

import java.util.Map;
import java.util.TreeMap;

/** Names the records of a batch compactly for error messages: "orders-0 offsets 10..42, orders-1 offset 7". */
final class OffsetRanges {

    private OffsetRanges() {
    }

    static String describe(QueueBatches batches) {
        Map<String, long[]> ranges = new TreeMap<>();
        for (QueueBatches.Chunk chunk : batches.chunks()) {
            for (PendingEvent event : chunk.events()) {
                SinkRecord record = event.record();
                String partition = record.originalTopic() + "-" + record.originalKafkaPartition();
                long offset = record.originalKafkaOffset();
                ranges.merge(partition, new long[] {offset, offset},
                        (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
            }
        }
        StringBuilder text = new StringBuilder();
        ranges.forEach((partition, range) -> {
            if (text.length() > 0) {
                text.append(", ");
            }
            text.append(partition).append(range[0] == range[1] ? " offset " + range[0] : " offsets " + range[0] + ".." + range[1]);
        });
        return text.toString();
    }
}

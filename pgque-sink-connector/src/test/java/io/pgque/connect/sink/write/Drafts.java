/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import io.pgque.connect.sink.convert.EventDraft;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;

/** Pending events for the write-path tests: real records, real drafts. */
final class Drafts {

    private Drafts() {
    }

    /** An event for {@code queue} from topic-partition {@code topic}-{@code partition} at {@code offset}; payload "p{offset}". */
    static PendingEvent pending(String queue, String topic, int partition, long offset) {
        return pending(queue, topic, partition, offset, "{\"n\":" + offset + "}", null);
    }

    static PendingEvent pending(String queue, String topic, int partition, long offset, String payload, String dedupKey) {
        SinkRecord record = new SinkRecord(topic, partition, null, "k" + offset, null, payload, offset,
                1_700_000_000_000L, TimestampType.CREATE_TIME, new ConnectHeaders());
        return new PendingEvent(record, new EventDraft(queue, topic, payload, "k" + offset, dedupKey, null, null));
    }
}

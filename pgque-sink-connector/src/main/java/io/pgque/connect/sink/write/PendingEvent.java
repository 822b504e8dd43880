/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import io.pgque.connect.sink.convert.EventDraft;
import org.apache.kafka.connect.sink.SinkRecord;

import java.util.Objects;

/**
 * An event waiting to be written, with the record it came from: the record is what a failure
 * is reported on (its coordinates, and the record itself for the dead letter queue).
 */
public record PendingEvent(SinkRecord record, EventDraft draft) {

    public PendingEvent {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(draft, "draft");
    }

    /** Where the record is in Kafka, as error messages name it (original coordinates, before transforms). */
    public String coordinates() {
        return "topic=" + record.originalTopic() + ", partition=" + record.originalKafkaPartition()
                + ", offset=" + record.originalKafkaOffset();
    }
}

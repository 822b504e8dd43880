/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.errors;

import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A record the sink cannot write, with where it came from in Kafka and why. The coordinates are
 * the record's original ones (before any transformation), so they find the record in Kafka.
 */
public final class BadRecordException extends DataException {

    private static final long serialVersionUID = 1L;

    public BadRecordException(SinkRecord record, String reason) {
        super("Bad record at topic=" + record.originalTopic()
                + ", partition=" + record.originalKafkaPartition()
                + ", offset=" + record.originalKafkaOffset() + ": " + reason);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.delivery;

import io.pgque.connect.sink.convert.RecordConverter;
import io.pgque.connect.sink.errors.BadRecordHandler;
import io.pgque.connect.sink.write.RejectedEvent;
import io.pgque.connect.sink.write.SinkWriter;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The default mode: each put is committed in PostgreSQL before it returns, and Kafka commits the
 * offsets later. A failure between the two makes the worker deliver a suffix again, which is
 * written again after the originals (duplicates, never reordering).
 */
public final class AtLeastOnceDelivery implements Delivery {

    private final RecordConverter converter;
    private final BadRecordHandler badRecords;
    private final SinkWriter writer;

    public AtLeastOnceDelivery(RecordConverter converter, BadRecordHandler badRecords, SinkWriter writer) {
        this.converter = converter;
        this.badRecords = badRecords;
        this.writer = writer;
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        // Kafka's own committed offsets say where to resume.
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        ConvertedPut put = ConvertedPut.of(converter, records);
        put.failUnlessReportable(badRecords);
        List<RejectedEvent> rejected = put.events().isEmpty() ? List.of() : writer.write(put.events(), badRecords.canReport());
        // Reported after the write committed, so a write that is retried never reports twice.
        put.report(badRecords, rejected);
    }

    /** Everything was written in put(); only the dead letter reports may still be in flight. */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> delivered) {
        badRecords.awaitReports();
        return delivered;
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        // Nothing is kept per partition.
    }
}

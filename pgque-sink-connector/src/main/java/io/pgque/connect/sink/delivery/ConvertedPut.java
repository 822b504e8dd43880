/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.delivery;

import io.pgque.connect.sink.convert.ConversionOutcome;
import io.pgque.connect.sink.convert.RecordConverter;
import io.pgque.connect.sink.errors.BadRecordHandler;
import io.pgque.connect.sink.offsets.PartitionOffsets;
import io.pgque.connect.sink.write.PendingEvent;
import io.pgque.connect.sink.write.RejectedEvent;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A put's records, converted: the events to write, in delivery order, and the records that
 * cannot become an event, with why. Skipped records (tombstones under {@code skip}) are in
 * neither: they need no write, but are among {@code records}.
 */
record ConvertedPut(List<SinkRecord> records, List<PendingEvent> events, List<Refusal> refused) {

    /** A record that cannot become an event, and why. */
    record Refusal(SinkRecord record, String reason) {
    }

    static ConvertedPut of(RecordConverter converter, Collection<SinkRecord> records) {
        List<PendingEvent> events = new ArrayList<>(records.size());
        List<Refusal> refused = new ArrayList<>();
        for (SinkRecord record : records) {
            ConversionOutcome outcome = converter.convert(record);
            if (outcome instanceof ConversionOutcome.Converted converted) {
                events.add(new PendingEvent(record, converted.event()));
            } else if (outcome instanceof ConversionOutcome.Rejected rejected) {
                refused.add(new Refusal(record, rejected.reason()));
            }
        }
        return new ConvertedPut(List.copyOf(records), events, refused);
    }

    /**
     * Where this put starts in each Kafka partition (original coordinates): where the worker must
     * deliver again from if its write fails.
     */
    Map<TopicPartition, Long> firstOffsets() {
        Map<TopicPartition, Long> first = new HashMap<>();
        for (SinkRecord record : records) {
            first.merge(PartitionOffsets.partitionOf(record), record.originalKafkaOffset(), Math::min);
        }
        return first;
    }

    /** This put without the records of {@code partitions}. */
    ConvertedPut without(Set<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return this;
        }
        return filter(record -> !partitions.contains(PartitionOffsets.partitionOf(record)));
    }

    /** This put with only {@code kept} (the same instances the put was converted from). */
    ConvertedPut only(Collection<SinkRecord> kept) {
        if (kept.size() == records.size()) {
            return this;
        }
        Set<SinkRecord> set = Collections.newSetFromMap(new IdentityHashMap<>());
        set.addAll(kept);
        return filter(set::contains);
    }

    private ConvertedPut filter(Predicate<SinkRecord> keep) {
        return new ConvertedPut(records.stream().filter(keep).toList(),
                events.stream().filter(e -> keep.test(e.record())).toList(),
                refused.stream().filter(r -> keep.test(r.record())).toList());
    }

    /** Without a reporter the first refused record fails the task, before anything of the put is written. */
    void failUnlessReportable(BadRecordHandler badRecords) {
        if (!refused.isEmpty() && !badRecords.canReport()) {
            badRecords.handle(refused.get(0).record(), refused.get(0).reason());
        }
    }

    /** Reports the refused records, then the events the database refused. */
    void report(BadRecordHandler badRecords, List<RejectedEvent> rejectedByDatabase) {
        for (Refusal bad : refused) {
            badRecords.handle(bad.record(), bad.reason());
        }
        for (RejectedEvent bad : rejectedByDatabase) {
            badRecords.handle(bad.event().record(), "the database refused the event: " + bad.reason());
        }
    }
}

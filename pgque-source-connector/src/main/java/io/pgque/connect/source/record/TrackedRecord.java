/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

import java.util.Map;

/**
 * A source record that remembers which batch delivery it is part of. Connect hands the very
 * record object that poll() returned back to commitRecord(), so the ticket travels with it and
 * commitRecord needs no lookup table (and a batch re-sent after a lost lease gets new tickets,
 * so late acknowledgements of the old copies cannot count towards the new one).
 */
public final class TrackedRecord extends SourceRecord {

    private final DeliveryTicket ticket;

    TrackedRecord(Map<String, ?> sourcePartition, Map<String, ?> sourceOffset, String topic, Integer partition,
                  Schema keySchema, Object key, Schema valueSchema, Object value, Long timestamp,
                  Iterable<Header> headers, DeliveryTicket ticket) {
        super(sourcePartition, sourceOffset, topic, partition, keySchema, key, valueSchema, value, timestamp, headers);
        this.ticket = ticket;
    }

    public DeliveryTicket ticket() {
        return ticket;
    }

    /**
     * Identity, as for the ticket: each record is one delivery of one event, and Connect hands
     * back the very object poll() returned. ConnectRecord's equality compares (and its hash reads)
     * the whole content, payload and headers included, and an exactly-once worker keys a map by
     * every record it sends (twice per record, on dispatch and on acknowledgement), which with
     * large payloads makes hashing a large share of an exactly-once task's CPU.
     */
    @Override
    public boolean equals(Object other) {
        return this == other;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}

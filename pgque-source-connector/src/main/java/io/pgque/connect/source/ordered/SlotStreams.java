/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ordered;

import io.pgque.client.SlotConsumer;
import io.pgque.connect.source.delivery.Delivery;
import io.pgque.connect.source.metrics.StreamEvents;
import io.pgque.connect.source.reader.ReadAheadSettings;
import io.pgque.connect.source.reader.ReadAheads;
import io.pgque.connect.source.reader.SlotReader;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.stream.BatchStream;
import io.pgque.connect.source.stream.HandOver;
import io.pgque.connect.source.stream.StreamSettings;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;

/**
 * The stream of one task's slots: a {@link SlotReader} per slot, reading ahead together (their
 * scans of a window shared), handing over per the worker's transactions.
 */
public final class SlotStreams {

    private SlotStreams() {
    }

    /**
     * @param ttl          lease TTL given to every claim; a third of it apart, leases waiting on Kafka are renewed
     * @param pollInterval how long an empty or unclaimable slot rests, and the longest one poll() waits
     * @param chunkSize    events per read from the database
     * @param cursors      connections for the cursors over the rest of large batches (one per slot streaming one)
     * @param backoff      pause after a transient database failure, before poll() reports it
     * @param delivery     transactions and resumed positions; whether a batch read ahead may be sent ahead
     *                     is also its to say ({@link Delivery#allowsSendAhead})
     * @param ahead        whether and how slots read their next batch ahead, and whether they may send it ahead
     */
    public static BatchStream open(SlotConsumer consumer, List<Integer> slots, RecordFactory records, Duration ttl,
                                   Duration pollInterval, int chunkSize, DataSource cursors, Duration backoff,
                                   StreamEvents events, Delivery delivery, ReadAheadSettings ahead) {
        if (chunkSize < 1) {
            throw new IllegalArgumentException("chunkSize must be at least 1, was " + chunkSize);
        }
        ReadAheads aheads = ahead.readAhead() ? new ReadAheads(consumer, slots, cursors, chunkSize, ahead) : null;
        List<SlotReader> readers = slots.stream()
                .map(slot -> new SlotReader(consumer, slot, ttl, cursors, aheads)).toList();
        boolean sendAhead = ahead.sendAhead() && delivery.allowsSendAhead();
        return new BatchStream(readers, HandOver.Kind.forSlots(delivery.boundary()), records, events, delivery,
                new StreamSettings(chunkSize, pollInterval, backoff, ttl.dividedBy(3), sendAhead), aheads,
                () -> "queue '" + consumer.queue() + "' as consumer '" + consumer.consumer() + "'");
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.client.BatchPage;
import io.pgque.client.Message;
import io.pgque.client.OpenedBatch;
import io.pgque.connect.source.metrics.StreamEvents;
import io.pgque.connect.source.offsets.DeliveredPosition;
import io.pgque.connect.source.offsets.DeliveredPositions;
import io.pgque.connect.source.reader.RestOfBatch;
import io.pgque.connect.source.record.ReaderId;
import io.pgque.connect.source.record.RecordFactory;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Turns what a reader read into chunks of records: a batch about to stream (its first chunk, the
 * events read beyond it kept for later, and, for the first batch of a lease, what Kafka holds of
 * it already), and each chunk into the records handed to Connect.
 */
final class Chunks {

    private static final Logger log = LoggerFactory.getLogger(Chunks.class);

    private final RecordFactory records;
    private final StreamEvents events;
    private final DeliveredPositions positions;
    private final int chunkSize;
    private final Runnable wake;

    /** @param wake wakes the poll thread (Kafka acknowledged a chunk, or a whole batch) */
    Chunks(RecordFactory records, StreamEvents events, DeliveredPositions positions, int chunkSize, Runnable wake) {
        if (chunkSize < 1) {
            throw new IllegalArgumentException("chunkSize must be at least 1, was " + chunkSize);
        }
        this.records = records;
        this.events = events;
        this.positions = positions;
        this.chunkSize = chunkSize;
        this.wake = wake;
    }

    int chunkSize() {
        return chunkSize;
    }

    /**
     * A batch about to stream: its ticket, with the events beyond its first chunk buffered, and
     * that first chunk.
     *
     * @param more whether the batch holds more than the first chunk
     */
    record Opening(StreamedBatch batch, List<Message> first, boolean more) {
    }

    Opening opening(Lane lane, OpenedBatch received) {
        BatchPage page = received.first();
        StreamedBatch batch = new StreamedBatch(page.batchId(), chunkSize, wake);
        if (received.rest() != null) {
            batch.cursorOpened(RestOfBatch.of(received.rest()));
        }
        if (lane.needsDeliveryCheck()) {
            checkDelivered(lane.reader().id(), batch); // done once the lane starts the batch
        }
        List<Message> first = page.messages();
        boolean more = page.full();
        if (first.size() > chunkSize) {
            // Read ahead in one query of several chunks: handed over a chunk at a time all the same.
            batch.buffer(first.subList(chunkSize, first.size()), more);
            first = first.subList(0, chunkSize);
            more = true;
        }
        return new Opening(batch, first, more);
    }

    /** Hands one chunk of the lane's batch over; null when nothing of it is to be sent. */
    List<SourceRecord> emit(Lane lane, StreamedBatch batch, List<Message> chunk, boolean last) {
        ReaderId from = lane.reader().id();
        List<Message> toSend = batch.take(chunk);
        List<SourceRecord> out = new ArrayList<>(toSend.size());
        for (Message message : toSend) {
            if (batch.paused().heldBack(message)) {
                // Its key was paused earlier in the batch: the engine set it aside, to come after that event.
                batch.ticket().delivered();
                continue;
            }
            SourceRecord record = records.create(message, from, lane.reader(), batch.ticket(), batch.paused());
            if (record != null) { // null: dead-lettered or paused, and counted as delivered
                out.add(record);
            }
        }
        if (last) {
            batch.lastChunkTaken();
            if (batch.resumed() && batch.sent() == 0) {
                events.batchSkipped(from, clamp(batch.size()));
                log.info("Batch {} of {} is in Kafka already, to its last event (its offset was committed with it); "
                        + "acking it without sending it again", batch.batchId(), from.logName());
            }
        }
        if (out.isEmpty()) {
            return null; // all of it skipped or dead-lettered; a complete batch is acked on the next step
        }
        events.batchEmitted(from, out.size());
        log.debug("Emitted {} records of {}", out.size(), batch);
        return out;
    }

    /**
     * Exactly-once, first batch after a claim (or a start): how much of it Kafka holds, by the
     * offset committed with the records. Only then: later batches are opened after this task
     * acked the previous one, so none of them can be in Kafka already. (A cooperative member gets
     * its open batch back under the same id after a restart, which makes the offsets comparable.)
     */
    private void checkDelivered(ReaderId reader, StreamedBatch batch) {
        Optional<DeliveredPosition> delivered = positions.lastDelivered(reader.sourcePartition());
        if (delivered.isEmpty()) {
            return;
        }
        DeliveredPosition position = delivered.get();
        if (position.isAheadOf(batch.batchId())) {
            log.warn("The committed offset of {} is at batch {}, beyond its open batch {}: was the database restored "
                            + "from a backup? Sending the batch whole; reset the connector's offsets after such a "
                            + "restore.", reader.logName(), position.batchId(), batch.batchId());
        } else if (position.batchId() == batch.batchId()) {
            batch.heldInKafkaThrough(position.eventId());
            log.info("Resuming batch {} of {} after event {}: Kafka holds it up to there", batch.batchId(),
                    reader.logName(), position.eventId());
        }
    }

    static int clamp(long count) {
        return (int) Math.min(count, Integer.MAX_VALUE);
    }
}

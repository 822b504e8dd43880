/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.reader.RestOfBatch;
import io.pgque.client.Message;
import io.pgque.client.PausedKeys;
import io.pgque.connect.source.record.DeliveryTicket;

import java.util.List;

/**
 * One batch on its way to Kafka, handed over in chunks of at most {@code chunkSize} records so
 * that the task never holds the whole batch (one built while the ticker stood still can hold
 * millions of events): its {@link ReadPosition} in the database (poll thread) and its
 * {@link DeliveryCount} of Kafka's acknowledgements (any thread). It is delivered once its last
 * chunk was taken and every record of every chunk acknowledged, and only then acked in
 * PostgreSQL. The next chunk is read only while at most one chunk is unacknowledged, so a reader
 * holds at most two chunks of records: the bound on a task's memory, whatever the batch's size.
 */
public final class StreamedBatch implements DeliveryTicket {

    private final long batchId;
    private final PausedKeys paused = new PausedKeys();
    private final ReadPosition position = new ReadPosition();
    private final DeliveryCount delivery;

    /** @param wake tells the poll thread there is something to do (any thread; must not block) */
    StreamedBatch(long batchId, int chunkSize, Runnable wake) {
        this.batchId = batchId;
        this.delivery = new DeliveryCount(chunkSize, wake);
    }

    /** The keys paused in this batch (pgque.failure.policy=pause): their later events are not sent. */
    PausedKeys paused() {
        return paused;
    }

    /** What each record of the batch reports to once Kafka has it. */
    DeliveryTicket ticket() {
        return delivery;
    }

    @Override
    public void delivered() {
        delivery.delivered();
    }

    /**
     * Takes a chunk read from the database: moves the read position past it and returns the
     * events to send (those Kafka does not hold yet), each counted as outstanding until
     * acknowledged. Call before creating their records: an event dead-lettered on the way counts
     * itself down at once.
     */
    List<Message> take(List<Message> chunk) {
        List<Message> toSend = position.take(chunk);
        delivery.handedOver(toSend.size());
        return toSend;
    }

    /** The batch's last chunk was taken: its cursor is closed, and it is delivered when the last record is. */
    void lastChunkTaken() {
        position.closeCursor();
        delivery.lastChunkTaken();
    }

    /** More of the batch is to be read, and at most one chunk is still waiting on Kafka. */
    boolean readyForMore() {
        return !delivery.complete() && delivery.atMostAChunkOutstanding();
    }

    boolean complete() {
        return delivery.complete();
    }

    boolean isDelivered() {
        return delivery.isDelivered();
    }

    boolean atMostAChunkOutstanding() {
        return delivery.atMostAChunkOutstanding();
    }

    boolean anyOutstanding() {
        return delivery.anyOutstanding();
    }

    void heldInKafkaThrough(long eventId) {
        position.heldInKafkaThrough(eventId);
    }

    boolean resumed() {
        return position.resumed();
    }

    void buffer(List<Message> rest, boolean more) {
        position.buffer(rest, more);
    }

    List<Message> takeBuffered(int max) {
        return position.takeBuffered(max);
    }

    boolean hasBuffered() {
        return position.hasBuffered();
    }

    boolean readToEnd() {
        return position.readToEnd();
    }

    long restAfter() {
        return position.restAfter();
    }

    RestOfBatch cursor() {
        return position.cursor();
    }

    void cursorOpened(RestOfBatch opened) {
        position.cursorOpened(opened);
    }

    void closeCursor() {
        position.closeCursor();
    }

    public long batchId() {
        return batchId;
    }

    /** Events of the batch read so far (all of them once complete). */
    long size() {
        return position.received();
    }

    /** Records handed to Connect so far. */
    long sent() {
        return position.sent();
    }

    @Override
    public String toString() {
        return "batch " + batchId + " (" + position.received() + (delivery.complete() ? "" : "+") + " events)";
    }
}

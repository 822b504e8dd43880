/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.slot;

import io.pgque.connect.source.record.DeliveryTicket;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One received batch whose records are on their way to Kafka. Records count down as Kafka
 * acknowledges them (on the producer's thread); the last one hands the batch to the poll thread,
 * which acks it in PostgreSQL. Only the counter is shared between threads.
 */
final class InFlightBatch implements DeliveryTicket {

    private final int slot;
    private final long batchId;
    private final long epoch;
    private final int size;
    private final AtomicInteger outstanding;
    private final Consumer<InFlightBatch> onDelivered;

    InFlightBatch(int slot, long batchId, long epoch, int size, Consumer<InFlightBatch> onDelivered) {
        this.slot = slot;
        this.batchId = batchId;
        this.epoch = epoch;
        this.size = size;
        this.outstanding = new AtomicInteger(size);
        this.onDelivered = onDelivered;
    }

    @Override
    public void delivered() {
        if (outstanding.decrementAndGet() == 0) {
            onDelivered.accept(this);
        }
    }

    /** True once Kafka has every record of the batch. */
    boolean isDelivered() {
        return outstanding.get() <= 0;
    }

    int slot() {
        return slot;
    }

    long batchId() {
        return batchId;
    }

    long epoch() {
        return epoch;
    }

    int size() {
        return size;
    }

    @Override
    public String toString() {
        return "batch " + batchId + " (" + size + " events) on slot " + slot + " at epoch " + epoch;
    }
}

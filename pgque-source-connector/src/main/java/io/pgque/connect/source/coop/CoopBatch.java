/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.coop;

import io.pgque.connect.source.record.DeliveryTicket;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The batch a cooperative worker has on its way to Kafka. Records count down as Kafka
 * acknowledges them (on the producer's thread); the last one wakes the poll thread, which acks
 * the batch in PostgreSQL. Only the counter is shared between threads.
 */
final class CoopBatch implements DeliveryTicket {

    private final long batchId;
    private final int size;
    private final AtomicInteger outstanding;
    private final Consumer<CoopBatch> onDelivered;

    CoopBatch(long batchId, int size, Consumer<CoopBatch> onDelivered) {
        this.batchId = batchId;
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

    boolean isDelivered() {
        return outstanding.get() <= 0;
    }

    long batchId() {
        return batchId;
    }

    int size() {
        return size;
    }

    @Override
    public String toString() {
        return "batch " + batchId + " (" + size + " events)";
    }
}

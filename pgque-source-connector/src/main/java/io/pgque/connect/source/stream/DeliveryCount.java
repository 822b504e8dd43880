/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.record.DeliveryTicket;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Kafka's acknowledgements of one batch's records, counted across threads: records are counted
 * out on the poll thread as they are handed over, and counted back on the producer's thread. The
 * batch is delivered once its last chunk was taken and every record acknowledged. The poll
 * thread is woken when that happens and when room for the next chunk appears (at most one chunk
 * outstanding). The only part of a batch in flight that is shared between threads.
 */
final class DeliveryCount implements DeliveryTicket {

    private final int chunkSize;
    private final AtomicLong outstanding = new AtomicLong();
    private volatile boolean complete;
    private final Runnable wake;

    /** @param wake tells the poll thread there is something to do (any thread; must not block) */
    DeliveryCount(int chunkSize, Runnable wake) {
        this.chunkSize = chunkSize;
        this.wake = wake;
    }

    /** Any thread: one record is in Kafka (or was dropped on purpose, or dead-lettered). */
    @Override
    public void delivered() {
        long left = outstanding.decrementAndGet();
        // Room for one more chunk: of this batch, or (once it is complete) of the one read ahead.
        if (left == 0 ? complete : left == chunkSize) {
            wake.run();
        }
    }

    /** {@code records} more were handed over. */
    void handedOver(int records) {
        outstanding.addAndGet(records);
    }

    /** The batch's last chunk was taken: it is delivered when the last outstanding record is. */
    void lastChunkTaken() {
        complete = true;
        if (outstanding.get() == 0) {
            wake.run();
        }
    }

    boolean complete() {
        return complete;
    }

    /** True once every chunk was taken and Kafka has every record of them. */
    boolean isDelivered() {
        return complete && outstanding.get() <= 0;
    }

    /** At most one chunk of the batch is still waiting on Kafka. */
    boolean atMostAChunkOutstanding() {
        return outstanding.get() <= chunkSize;
    }

    /** True while records handed to Connect wait for Kafka's acknowledgement. */
    boolean anyOutstanding() {
        return outstanding.get() > 0;
    }
}

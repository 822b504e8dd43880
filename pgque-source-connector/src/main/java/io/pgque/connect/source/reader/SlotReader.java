/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.reader;

import io.pgque.client.BatchNotFoundException;
import io.pgque.client.BatchPage;
import io.pgque.client.Message;
import io.pgque.client.OpenedBatch;
import io.pgque.client.Slot;
import io.pgque.client.SlotConsumer;
import io.pgque.client.SlotFencedException;
import io.pgque.client.SlotLease;
import io.pgque.client.SlotNotLeasedException;
import io.pgque.connect.source.record.ReaderId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Optional;

/**
 * One slot of a partitioned consumer, read over a lease: claimed before its first batch, renewed
 * while a batch waits on Kafka, given back on stopping. A fenced or lost lease is a
 * {@link LostException}; the stream claims the slot again when it is free.
 */
public final class SlotReader implements BatchReader {

    private static final Logger log = LoggerFactory.getLogger(SlotReader.class);
    private static final long NO_LEASE = -1;

    private final SlotConsumer consumer;
    private final Slot slot;
    private final Duration ttl;
    private final DataSource cursors;
    private final AheadReader ahead;
    private ReaderId.Slot id;

    /**
     * @param ttl     lease TTL given to every claim
     * @param cursors connections for the cursors over the rest of large batches
     * @param ahead   the task's read-ahead of its slots, or null when it reads nothing ahead
     */
    public SlotReader(SlotConsumer consumer, int slot, Duration ttl, DataSource cursors, ReadAheads ahead) {
        this.consumer = consumer;
        this.slot = consumer.slot(slot);
        this.ttl = ttl;
        this.cursors = cursors;
        this.ahead = ahead == null ? null : ahead.forSlot(slot);
        this.id = ReaderId.slot(consumer.queue(), consumer.consumer(), slot, NO_LEASE);
    }

    @Override
    public ReaderId.Slot id() {
        return id;
    }

    @Override
    public boolean claim() {
        Optional<SlotLease> lease = slot.claim(ttl);
        if (lease.isEmpty()) {
            log.debug("Slot {} of {} is held by another worker; trying again later", slot.number(),
                    consumer.consumer());
            return false;
        }
        id = id.withEpoch(lease.get().epoch());
        log.info("Claimed slot {} of {} on queue {} as {} (epoch {})", slot.number(), consumer.consumer(),
                consumer.queue(), consumer.workerId(), id.epoch());
        return true;
    }

    /** A slot that is behind reads its next batch whole into a cursor, in one scan of its window. */
    @Override
    public Optional<OpenedBatch> open(boolean whole, int max) throws LostException {
        try {
            return whole ? slot.receiveThroughCursor(cursors, max) : slot.receivePage(max).map(SlotReader::firstPage);
        } catch (SlotFencedException | SlotNotLeasedException e) {
            throw new LostException(e);
        }
    }

    @Override
    public Optional<OpenedBatch> ackAndOpen(long done, boolean whole, int max) throws LostException {
        try {
            return whole ? slot.afterAck(done).receiveThroughCursor(cursors, max)
                    : slot.afterAck(done).receivePage(max).map(SlotReader::firstPage);
        } catch (SlotFencedException | SlotNotLeasedException e) {
            throw new LostException(e);
        }
    }

    @Override
    public RestOfBatch readOn(long batchId, long after) throws LostException {
        try {
            return RestOfBatch.of(slot.openRest(cursors, batchId, after));
        } catch (SlotFencedException | SlotNotLeasedException | BatchNotFoundException e) {
            throw new LostException(e);
        }
    }

    @Override
    public boolean ack(long batchId) throws LostException {
        try {
            return slot.ack(batchId);
        } catch (SlotFencedException | SlotNotLeasedException e) {
            throw new LostException(e);
        }
    }

    @Override
    public void deadLetter(long msgId, String reason) {
        slot.deadLetter(msgId, reason);
    }

    @Override
    public boolean pause(Message message, Duration retryAfter, String reason) {
        return slot.pause(message, retryAfter, reason);
    }

    /** Renews the lease by claiming again: a missing answer is not proof of loss, the ack will tell. */
    @Override
    public KeepAlive keepAlive() {
        Optional<SlotLease> lease = slot.claim(ttl);
        if (lease.isEmpty()) {
            return KeepAlive.NOT_NOW;
        }
        if (lease.get().epoch() != id.epoch()) {
            id = id.withEpoch(lease.get().epoch());
            return KeepAlive.TAKEN_OVER;
        }
        return KeepAlive.KEPT;
    }

    @Override
    public void release() {
        boolean released = slot.release();
        log.info("Released slot {} of {} (epoch {}){}", slot.number(), consumer.consumer(), id.epoch(),
                released ? "" : ": it was no longer ours");
    }

    @Override
    public boolean waitsForTicks() {
        return true;
    }

    @Override
    public Optional<AheadReader> ahead() {
        return Optional.ofNullable(ahead);
    }

    /** A first page read without a cursor: the rest, if any, gets one when it is read. */
    private static OpenedBatch firstPage(BatchPage page) {
        return new OpenedBatch(page, null);
    }
}

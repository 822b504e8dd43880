/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.reader;

import io.pgque.client.BatchNotFoundException;
import io.pgque.client.CoopConsumer;
import io.pgque.client.OpenedBatch;
import io.pgque.connect.source.record.ReaderId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.util.Optional;

/**
 * A member (worker) of a cooperative consumer: no lease, one batch at a time, which it keeps by
 * saying it is alive while the batch waits on Kafka ({@code touch_subconsumer}). A batch a
 * sibling took over after the member was silent too long is a {@link LostException} when read on.
 */
public final class MemberReader implements BatchReader {

    private static final Logger log = LoggerFactory.getLogger(MemberReader.class);

    private final CoopConsumer consumer;
    private final DataSource cursors;
    private final ReaderId.Member id;

    /** @param cursors connections for the cursor over the rest of a large batch */
    public MemberReader(CoopConsumer consumer, DataSource cursors) {
        this.consumer = consumer;
        this.cursors = cursors;
        this.id = ReaderId.member(consumer.queue(), consumer.consumer(), consumer.subconsumer());
    }

    @Override
    public ReaderId.Member id() {
        return id;
    }

    /** A member reads by its registration: nothing to claim. */
    @Override
    public boolean claim() {
        return true;
    }

    /** Always a first page: a member's batch is read on through a cursor only once it is open. */
    @Override
    public Optional<OpenedBatch> open(boolean whole, int max) {
        return consumer.receivePage(max).map(page -> new OpenedBatch(page, null));
    }

    @Override
    public Optional<OpenedBatch> ackAndOpen(long done, boolean whole, int max) {
        ack(done);
        return open(whole, max);
    }

    @Override
    public RestOfBatch readOn(long batchId, long after) throws LostException {
        try {
            return RestOfBatch.of(consumer.openRest(cursors, batchId, after));
        } catch (BatchNotFoundException e) {
            // At-least-once: a sibling took the batch over after we were silent too long, and delivers it again.
            throw new LostException(e);
        }
    }

    /**
     * Acks; a batch no longer found is finished for this member either way: our earlier ack
     * committed but its answer was lost, or (at-least-once) a sibling took it over after we were
     * silent too long and delivers it again.
     */
    @Override
    public boolean ack(long batchId) {
        try {
            consumer.ack(batchId);
            return true;
        } catch (BatchNotFoundException e) {
            log.warn("Worker {} of {} could not ack batch {}: {}", consumer.subconsumer(), consumer.consumer(), batchId,
                    e.getMessage());
            return false;
        }
    }

    @Override
    public void deadLetter(long msgId, String reason) {
        consumer.deadLetter(msgId, reason);
    }

    @Override
    public KeepAlive keepAlive() {
        if (!consumer.touch()) {
            log.warn("Worker {} of {} is not registered any more (unregistered by hand?); its batch will not be "
                    + "acked and comes to a sibling again", consumer.subconsumer(), consumer.consumer());
        }
        return KeepAlive.KEPT;
    }

    /** Its open batch stays the member's: the task's next start gets it again. */
    @Override
    public void release() {
    }

    @Override
    public boolean waitsForTicks() {
        return false;
    }

    @Override
    public Optional<AheadReader> ahead() {
        return Optional.empty();
    }
}

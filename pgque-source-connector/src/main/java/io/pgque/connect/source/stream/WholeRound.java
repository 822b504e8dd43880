/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.delivery.BatchBoundary;
import org.apache.kafka.connect.source.SourceRecord;

import java.util.List;

/**
 * With Kafka transactions the worker draws (exactly-once): every lane gives what it has ready
 * (ack and next batch, next chunk, or a first read), and all of it goes out as one transaction,
 * with the offsets of every slot in it. A transaction costs round trips of its own (the
 * partitions added to it, the offsets, the commit markers) whatever its size, so sharing one
 * among the slots of a task, and giving it two chunks of a large batch, is what makes
 * exactly-once cheap.
 *
 * <p>A lane whose batch was read ahead in one query (several chunks, already in memory) gives
 * all of it: the catch-up window's batches then go out as one transaction each rather than two.
 * A lane streaming a batch through a cursor gives a second chunk, and no more: Kafka acknowledges
 * the records of a transaction only once it commits, so none of this pass's is acknowledged yet
 * and {@link StreamedBatch#readyForMore} stops at two. Each lane still has at most one batch in
 * flight, read after its previous batch was acked, and acked only after its transaction committed.
 */
final class WholeRound implements HandOver {

    private final List<Lane> lanes;
    private final Steps steps;
    private final BatchBoundary boundary;

    WholeRound(List<Lane> lanes, Steps steps, BatchBoundary boundary) {
        this.lanes = lanes;
        this.steps = steps;
        this.boundary = boundary;
    }

    /** @return true: every lane had its turn */
    @Override
    public boolean serve(List<SourceRecord> out, long now, boolean tick) {
        for (Lane lane : lanes) {
            addTo(out, steps.next(lane, now, tick));
        }
        for (Lane lane : lanes) {
            while (Steps.hasBuffered(lane)) {
                addTo(out, steps.readOn(lane));
            }
            if (lane.batch() != null && lane.batch().readyForMore()) {
                addTo(out, steps.readOn(lane));
            }
        }
        return true;
    }

    @Override
    public List<SourceRecord> end(List<SourceRecord> out) {
        return HandOver.endWithPoll(out, boundary);
    }

    private static void addTo(List<SourceRecord> out, List<SourceRecord> chunk) {
        if (chunk != null) {
            out.addAll(chunk);
        }
    }
}

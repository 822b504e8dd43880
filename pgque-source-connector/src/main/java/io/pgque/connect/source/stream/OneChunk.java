/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.delivery.BatchBoundary;
import org.apache.kafka.connect.source.SourceRecord;

import java.util.List;

/**
 * One chunk of one reader per poll: the first lane in round-robin order from the cursor that
 * yields records is served, so a busy or empty lane never starves the others; delivered batches
 * the pass meets after it are just acked, unless their next batch is read ahead. With transactions
 * (a cooperative member) each chunk is one.
 */
final class OneChunk implements HandOver {

    private final List<Lane> lanes;
    private final Steps steps;
    private final BatchBoundary boundary;
    private int cursor;

    OneChunk(List<Lane> lanes, Steps steps, BatchBoundary boundary) {
        this.lanes = lanes;
        this.steps = steps;
        this.boundary = boundary;
    }

    /** @return whether the pass looked at every lane for records (none yielded any) */
    @Override
    public boolean serve(List<SourceRecord> out, long now, boolean tick) {
        int count = lanes.size();
        for (int i = 0; i < count; i++) {
            // Once a lane yields, the cursor moves past it and the pass goes on from there: the
            // lanes it then meets have their delivered batches acked on the side.
            int index = (cursor + i) % count;
            Lane lane = lanes.get(index);
            if (out.isEmpty()) {
                List<SourceRecord> chunk = steps.next(lane, now, tick);
                if (chunk != null) {
                    out.addAll(chunk);
                    cursor = (index + 1) % count;
                }
            } else if (lane.batch() != null && lane.batch().isDelivered() && !lane.ahead().held()
                    && !steps.ackWaitsForTick(lane, now)) {
                // A lane whose next batch is read ahead waits for its own turn, which acks and
                // opens that batch in one step: acked here, the read-ahead would be given back
                // and its next batch read again with a scan of its own (docs/benchmarks.md, slots).
                steps.ack(lane, now);
            }
        }
        return out.isEmpty();
    }

    @Override
    public List<SourceRecord> end(List<SourceRecord> out) {
        return HandOver.endWithPoll(out, boundary);
    }
}

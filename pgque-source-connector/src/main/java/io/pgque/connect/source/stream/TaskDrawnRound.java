/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.delivery.BatchBoundary;
import org.apache.kafka.connect.source.SourceRecord;

import java.util.ArrayDeque;
import java.util.List;

/**
 * With Kafka transactions the task draws itself ({@code transaction.boundary=connector}): what
 * {@link WholeRound} puts in one poll, one chunk per poll. A transaction holds a round: every
 * lane in turn gives what it has ready, and the transaction ends after the round's last chunk.
 * The worker converts and sends each chunk while the next is read and turned into records, so the
 * producer has the first records of a transaction after one chunk, not after all of them. A new
 * round starts only after the last one's transaction ended, that is committed, so every lane's
 * earlier batch is acknowledged by then and each lane still has one batch in flight at a time.
 */
final class TaskDrawnRound implements HandOver {

    /** A lane's turn in the open transaction: its first (ack, next batch, next chunk) or a further chunk. */
    private record Turn(Lane lane, boolean first) {
    }

    private final List<Lane> lanes;
    private final Steps steps;
    private final BatchBoundary boundary;
    /** The turns still to come in the open transaction, or the next one. */
    private final ArrayDeque<Turn> round = new ArrayDeque<>();
    /** Whether a chunk went out since the task last drew a transaction boundary. */
    private boolean transactionOpen;

    TaskDrawnRound(List<Lane> lanes, Steps steps, BatchBoundary boundary) {
        this.lanes = lanes;
        this.steps = steps;
        this.boundary = boundary;
    }

    /** @return whether every lane had its turn in the round */
    @Override
    public boolean serve(List<SourceRecord> out, long now, boolean tick) {
        if (round.isEmpty() && !transactionOpen) {
            lanes.forEach(lane -> round.add(new Turn(lane, true)));
        }
        while (!round.isEmpty()) {
            Lane lane = round.peekFirst().lane();
            List<SourceRecord> chunk = round.peekFirst().first() ? steps.next(lane, now, tick)
                    : Steps.hasMoreForTransaction(lane) ? steps.readOn(lane) : null;
            round.pollFirst();
            if (Steps.hasMoreForTransaction(lane)) {
                round.addFirst(new Turn(lane, false));
            }
            if (chunk != null) {
                out.addAll(chunk);
                return round.isEmpty();
            }
        }
        return true;
    }

    @Override
    public List<SourceRecord> end(List<SourceRecord> out) {
        if (out.isEmpty()) {
            if (transactionOpen) {
                // The round's last chunk went out on an earlier poll: its transaction ends with this one.
                transactionOpen = false;
                boundary.transactionEndsWithPoll();
                return List.of();
            }
            return null;
        }
        if (!round.isEmpty()) {
            transactionOpen = true;
        } else {
            transactionOpen = false;
            boundary.transactionEndsAfter(out.get(out.size() - 1));
        }
        return out;
    }
}

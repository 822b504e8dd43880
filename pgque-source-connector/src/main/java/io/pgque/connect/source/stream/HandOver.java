/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.delivery.BatchBoundary;
import org.apache.kafka.connect.source.SourceRecord;

import java.util.List;

/**
 * What one {@code poll()} hands over of a stream's readers, and where its Kafka transaction
 * ends: one chunk of one reader ({@link OneChunk}, without transactions, or one reader at a
 * time), the chunks of every reader in one transaction ({@link WholeRound}, where the worker
 * draws the boundaries), or the same a chunk per poll ({@link TaskDrawnRound}, where the task
 * draws them). Chosen once, when the stream is built.
 */
public interface HandOver {

    /**
     * One pass over the lanes, adding what they hand over to {@code out}.
     *
     * @return whether every lane had its turn (a tick then reached them all)
     */
    boolean serve(List<SourceRecord> out, long now, boolean tick);

    /**
     * Tells the boundary where the transaction ends, after a pass that handed over {@code out}.
     *
     * @return what the poll returns: {@code out}, an empty list that ends an open transaction, or
     *         null when nothing was handed over
     */
    List<SourceRecord> end(List<SourceRecord> out);

    /** Which hand-over a stream uses. */
    enum Kind {
        ONE_CHUNK, WHOLE_ROUND, TASK_DRAWN_ROUND;

        /**
         * For the slots of a task: one chunk per poll without Kafka transactions; with them, every
         * slot's chunks in one transaction, drawn by the worker or by the task.
         */
        public static Kind forSlots(BatchBoundary boundary) {
            return !boundary.transactional() ? ONE_CHUNK : boundary.drawnByTask() ? TASK_DRAWN_ROUND : WHOLE_ROUND;
        }

        HandOver over(List<Lane> lanes, Steps steps, BatchBoundary boundary) {
            return switch (this) {
                case ONE_CHUNK -> new OneChunk(lanes, steps, boundary);
                case WHOLE_ROUND -> new WholeRound(lanes, steps, boundary);
                case TASK_DRAWN_ROUND -> new TaskDrawnRound(lanes, steps, boundary);
            };
        }
    }

    /** The transaction (if any) ends with the poll's last record. */
    static List<SourceRecord> endWithPoll(List<SourceRecord> out, BatchBoundary boundary) {
        if (out.isEmpty()) {
            return null;
        }
        boundary.transactionEndsAfter(out.get(out.size() - 1));
        return out;
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads every event of a batch, so that nobody acks events they never saw: the engine's
 * {@code receive} returns only the first page of a batch, while {@code ack} finishes all of it.
 * Whatever the first page leaves is read by <em>one</em> more query, streamed a page at a time:
 * every query scans the batch's whole tick window, so reading page by page would cost a scan
 * per page, quadratic in the batch size (a batch after the ticker stood still for an hour holds
 * the whole hour). Plain and partitioned consumers differ only in their two queries.
 */
final class WholeBatch {

    /** The first page: opens (or re-issues) the consumer's batch. */
    @FunctionalInterface
    interface FirstPage {
        List<Message> read(int max) throws SQLException;
    }

    /** The rest of the open batch: every event after {@code afterMsgId}, in order. */
    @FunctionalInterface
    interface Rest {
        List<Message> read(long batchId, long afterMsgId) throws SQLException;
    }

    /** The engine's {@code i_max} that asks for the rest of a batch, however long. */
    static final int ALL = Integer.MAX_VALUE;

    private WholeBatch() {
    }

    static void checkPageSize(int pageSize) {
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be at least 1, was " + pageSize);
        }
    }

    /** The whole batch, or empty when the consumer has no batch with events in it. */
    static Optional<Batch> read(int pageSize, FirstPage first, Rest rest) throws SQLException {
        List<Message> page = first.read(pageSize);
        if (page.isEmpty()) {
            return Optional.empty();
        }
        long batchId = page.get(0).batchId();
        if (page.size() < pageSize) {
            return Optional.of(new Batch(batchId, page));
        }
        List<Message> all = new ArrayList<>(page);
        all.addAll(rest.read(batchId, page.get(page.size() - 1).msgId()));
        return Optional.of(new Batch(batchId, all));
    }
}

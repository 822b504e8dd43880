package io.pgque.client;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads every event of a batch, page by page, so that nobody acks events they never saw: the
 * engine's {@code receive} returns only the first page of a batch, while {@code ack} finishes all
 * of it. Plain and partitioned consumers differ only in their two page queries.
 */
final class WholeBatch {

    /** The first page: opens (or re-issues) the consumer's batch. */
    @FunctionalInterface
    interface FirstPage {
        List<Message> read(int max) throws SQLException;
    }

    /** A following page: events of the open batch after {@code afterMsgId}, in order. */
    @FunctionalInterface
    interface NextPage {
        List<Message> read(long batchId, long afterMsgId, int max) throws SQLException;
    }

    private WholeBatch() {
    }

    static void checkPageSize(int pageSize) {
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be at least 1, was " + pageSize);
        }
    }

    /** The whole batch, or empty when the consumer has no batch with events in it. */
    static Optional<Batch> read(int pageSize, FirstPage first, NextPage next) throws SQLException {
        List<Message> page = first.read(pageSize);
        if (page.isEmpty()) {
            return Optional.empty();
        }
        long batchId = page.get(0).batchId();
        List<Message> all = new ArrayList<>(page);
        while (page.size() == pageSize) {
            long after = page.get(page.size() - 1).msgId();
            page = next.read(batchId, after, pageSize);
            all.addAll(page);
        }
        return Optional.of(new Batch(batchId, all));
    }
}

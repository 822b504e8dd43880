/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Consumer loops shared by the benchmarks: whole batches read in pages, then acked. */
final class Drains {

    private Drains() {
    }

    /** One page of a batch: the first when {@code afterMsgId} is null. Columns msg_id, batch_id, payload. */
    interface PageSource {
        ResultSet page(Long afterMsgId) throws SQLException;
    }

    /** A whole batch read; batchId is -1 when the first page was empty. */
    record WholeBatch(long batchId, long events) {
    }

    /**
     * Reads a batch page by page until a short page. The batch id lands in {@code batchIdOut} as
     * soon as the first row is read, so a page source can ask for the next page of that batch.
     */
    static WholeBatch readWholeBatch(int pageSize, PageSource source, long[] batchIdOut) throws SQLException {
        batchIdOut[0] = -1;
        long total = 0;
        Long after = null;
        int n;
        do {
            n = 0;
            try (ResultSet rs = source.page(after)) {
                while (rs.next()) {
                    after = rs.getLong("msg_id");
                    batchIdOut[0] = rs.getLong("batch_id");
                    rs.getString("payload");
                    n++;
                }
            }
            total += n;
        } while (n == pageSize);
        return new WholeBatch(batchIdOut[0], total);
    }

    /** Drains a plain consumer with receive + read_batch pages + ack until it reaches the newest tick. */
    static long plain(Connection c, String queue, String consumer, int pageSize) throws SQLException {
        long total = 0;
        try (PreparedStatement receive = c.prepareStatement("select msg_id, batch_id, payload from pgque.receive(?, ?, ?)");
             PreparedStatement more = c.prepareStatement("select msg_id, batch_id, payload from pgque.read_batch(?, ?, ?)");
             PreparedStatement ack = c.prepareStatement("select pgque.ack(?)")) {
            while (behind(c, queue, consumer)) {
                long[] batchId = {-1};
                WholeBatch read = readWholeBatch(pageSize, after -> {
                    if (after == null) {
                        receive.setString(1, queue);
                        receive.setString(2, consumer);
                        receive.setInt(3, pageSize);
                        return receive.executeQuery();
                    }
                    more.setLong(1, batchId[0]);
                    more.setLong(2, after);
                    more.setInt(3, pageSize);
                    return more.executeQuery();
                }, batchId);
                total += read.events();
                if (read.batchId() >= 0) {
                    ack.setLong(1, read.batchId());
                    ack.executeQuery().close();
                }
            }
        }
        return total;
    }

    /** Whether the consumer's cursor is behind the queue's newest tick. */
    static boolean behind(Connection c, String queue, String consumer) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select c.last_tick < q.last_tick_id"
                + " from pgque.get_consumer_info(?, ?) c, pgque.get_queue_info(?) q")) {
            ps.setString(1, queue);
            ps.setString(2, consumer);
            ps.setString(3, queue);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}

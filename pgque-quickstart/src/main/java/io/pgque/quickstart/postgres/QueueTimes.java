/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.postgres;

import io.pgque.quickstart.report.QueuedAt;

import javax.sql.DataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * When events were written into the queue and when a tick first made them readable, by event id:
 * the queue side of the latency by stage.
 */
public final class QueueTimes {

    /** The engine names a queue's event table itself; anything else is not used in SQL. */
    private static final Pattern EVENT_TABLE = Pattern.compile("pgque\\.event_[0-9]+");

    private final DataSource dataSource;
    private final String queue;

    public QueueTimes(DataSource dataSource, String queue) {
        this.dataSource = dataSource;
        this.queue = queue;
    }

    /**
     * Each event's {@code ev_time} (the start of the transaction that wrote it) and the time of
     * the first tick whose snapshot sees it, in epoch microseconds, for the ids given that are
     * still in the queue's tables; the tick time is -1 for an event no tick has seen yet.
     */
    public Map<Long, QueuedAt> queuedAt(long[] ids) {
        Map<Long, QueuedAt> times = new HashMap<>();
        try (Connection c = dataSource.getConnection()) {
            String table = eventTable(c);
            Long[] boxed = new Long[ids.length];
            for (int i = 0; i < ids.length; i++) {
                boxed[i] = ids[i];
            }
            Array array = c.createArrayOf("bigint", boxed);
            // The first tick that sees an event is the one its batch ends at: ticks are ordered,
            // and a snapshot that sees a transaction is followed only by snapshots that do too.
            try (PreparedStatement ps = c.prepareStatement("select e.ev_id, (extract(epoch from e.ev_time) * 1000000)::bigint,"
                    + " coalesce((select (extract(epoch from t.tick_time) * 1000000)::bigint from pgque.tick t"
                    + "   where t.tick_queue = q.queue_id and pg_visible_in_snapshot(e.ev_txid, t.tick_snapshot)"
                    + "   order by t.tick_id limit 1), -1)"
                    + " from " + table + " e, pgque.queue q where q.queue_name = ? and e.ev_id = any(?)")) {
                ps.setString(1, queue);
                ps.setArray(2, array);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        times.put(rs.getLong(1), new QueuedAt(rs.getLong(2), rs.getLong(3)));
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read when the events of queue '" + queue + "' were written", e);
        }
        return times;
    }

    private String eventTable(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select queue_data_pfx from pgque.queue where queue_name = ?")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || !EVENT_TABLE.matcher(rs.getString(1)).matches()) {
                    throw new SQLException("no event table of the expected form for queue '" + queue + "'");
                }
                return rs.getString(1);
            }
        }
    }
}

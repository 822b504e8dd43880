/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pgque.client.Event;
import io.pgque.client.PgQue;
import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Await;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** A test database with the engine installed, and the few things tests do to it. */
final class QueueFixture {

    /** The database on the shared server, or null for a server the test runs itself. */
    final EmbeddedPg.TestDatabase db;
    final DataSource ds;
    final PgQue pgque;
    private final String jdbcUrl;

    /** A fresh database on the JVM's shared server. */
    QueueFixture(String prefix) {
        this(EmbeddedPg.newDatabase(prefix).installEngine());
    }

    private QueueFixture(EmbeddedPg.TestDatabase db) {
        this.db = db;
        this.ds = db.superuser();
        this.pgque = PgQue.using(ds);
        this.jdbcUrl = db.jdbcUrl();
    }

    /** A database the test manages itself (already holding the engine), e.g. one it restarts. */
    QueueFixture(DataSource ds, String jdbcUrl) {
        this.db = null;
        this.ds = ds;
        this.pgque = PgQue.using(ds);
        this.jdbcUrl = jdbcUrl;
    }

    /**
     * A fresh database on the JVM's shared server, reached through a pool of {@code size}
     * connections, like a task's own, so hand-driven runs spend their time in the loop, not in
     * connecting; {@link #closePool()} it after the class.
     */
    static QueueFixture pooled(String prefix, int size) {
        String url = new QueueFixture(prefix).jdbcUrl();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        return new QueueFixture(new HikariDataSource(config), url);
    }

    /** Closes the pool of a {@link #pooled} fixture. */
    void closePool() {
        ((HikariDataSource) ds).close();
    }

    String jdbcUrl() {
        return jdbcUrl;
    }

    void createQueue(String queue) {
        pgque.queues().create(queue);
    }

    /** Sends {@code events} in one transaction, in list order. */
    void send(String queue, List<Event> events) {
        pgque.producer().sendBatch(queue, events);
    }

    /** Makes the events sent so far visible to consumers: a tick of its own, after they committed. */
    void tick(String queue) {
        pgque.operations().forceNextTick(queue);
        pgque.operations().ticker(queue);
    }

    int slotOf(String key, int n) {
        return queryInt("select pgque.slot_of(?, ?)", key, n);
    }

    /** Keys {@code prefix-i} whose slot is {@code slot} of {@code n}, {@code count} of them. */
    List<String> keysOnSlot(String prefix, int slot, int n, int count) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            if (slotOf(prefix + "-" + i, n) == slot) {
                keys.add(prefix + "-" + i);
            }
        }
        return keys;
    }

    long pendingEvents(String queue, String consumer, int slot) {
        return queryLong("select coalesce(pending_events, -1) from pgque.partition_slot_status "
                + "where queue_name = ? and consumer = ? and slot = ?", queue, consumer, slot);
    }

    long lastTick(String queue, String consumer, int slot) {
        return queryLong("select last_tick from pgque.partition_slot_status "
                + "where queue_name = ? and consumer = ? and slot = ?", queue, consumer, slot);
    }

    String leaseOwner(String queue, String consumer, int slot) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "select lease_owner from pgque.partition_slot_status where queue_name = ? and consumer = ? and slot = ?")) {
            ps.setString(1, queue);
            ps.setString(2, consumer);
            ps.setInt(3, slot);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    void execute(String sql) {
        try (Connection c = ds.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    int queryInt(String sql, Object... args) {
        return (int) queryLong(sql, args);
    }

    long queryLong(String sql, Object... args) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** The rows of a query, each as column name to value, in the query's order. */
    List<Map<String, Object>> rows(String sql, Object... args) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            List<Map<String, Object>> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int col = 1; col <= rs.getMetaData().getColumnCount(); col++) {
                        row.put(rs.getMetaData().getColumnLabel(col), rs.getObject(col));
                    }
                    rows.add(row);
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Waits for {@code condition}, checking every 50 ms, failing after {@code timeout}. */
    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        Await.until(what, timeout, condition);
    }
}

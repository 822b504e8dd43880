/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Await;
import io.pgque.testsupport.Jdbc;

import javax.sql.DataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Plain-JDBC access to an engine database for the engine tests. Every call runs as its own
 * autocommit statement on a fresh connection, i.e. in its own committed transaction: that is the
 * transaction discipline the engine requires (send, tick and receive must commit separately,
 * because a tick's snapshot decides which events a batch holds).
 */
final class Sql {

    private final DataSource ds;

    Sql(DataSource ds) {
        this.ds = ds;
    }

    DataSource dataSource() {
        return ds;
    }

    /**
     * Connections to {@code db} as login role {@code login}, which this (superuser) access
     * creates once per cluster and grants {@code role}.
     */
    Sql login(EmbeddedPg.TestDatabase db, String login, String role) {
        exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + login + "') then"
                + " create role " + login + " login; end if; end $$");
        exec("grant " + role + " to " + login);
        return new Sql(db.as(login));
    }

    Connection connect() throws SQLException {
        return ds.getConnection();
    }

    // ---------------------------------------------------------------- generic statements

    /** Runs a statement (any result is discarded); returns the warnings the server raised. */
    SQLWarning exec(String sql, Object... args) {
        try (Connection c = connect(); PreparedStatement ps = prepare(c, sql, args)) {
            ps.execute();
            return ps.getWarnings();
        } catch (SQLException e) {
            throw new SqlFailure(sql, e);
        }
    }

    /** The first column of the single row the query returns (may be null). */
    <T> T one(Class<T> type, String sql, Object... args) {
        try (Connection c = connect()) {
            return Jdbc.one(c, type, sql, args);
        } catch (SQLException e) {
            throw new SqlFailure(sql, e);
        }
    }

    /** The single value as a Long (any integer type), or null. */
    Long oneLongOrNull(String sql, Object... args) {
        Object v = one(Object.class, sql, args);
        return v == null ? null : ((Number) v).longValue();
    }

    long oneLong(String sql, Object... args) {
        Long v = oneLongOrNull(sql, args);
        assertNotNull(v, () -> "NULL from: " + sql);
        return v;
    }

    /** The single bigint[] value (null if SQL NULL). */
    List<Long> longArray(String sql, Object... args) {
        try (Connection c = connect(); PreparedStatement ps = prepare(c, sql, args);
             ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new AssertionError("no row from: " + sql);
            }
            Array a = rs.getArray(1);
            if (a == null) {
                return null;
            }
            List<Long> out = new ArrayList<>();
            for (Object o : (Object[]) a.getArray()) {
                out.add(o == null ? null : ((Number) o).longValue());
            }
            return out;
        } catch (SQLException e) {
            throw new SqlFailure(sql, e);
        }
    }

    /** All rows as column-label → value maps (in column order). */
    List<Map<String, Object>> rows(String sql, Object... args) {
        try (Connection c = connect()) {
            return Jdbc.rows(c, sql, args);
        } catch (SQLException e) {
            throw new SqlFailure(sql, e);
        }
    }

    List<Msg> messages(String sql, Object... args) {
        try (Connection c = connect()) {
            return messages(c, sql, args);
        } catch (SQLException e) {
            throw new SqlFailure(sql, e);
        }
    }

    static List<Msg> messages(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
            List<Msg> out = new ArrayList<>();
            while (rs.next()) {
                out.add(Msg.from(rs));
            }
            return out;
        }
    }

    /** Binds {@code args}: String[] becomes a text[] parameter, everything else setObject. */
    static PreparedStatement prepare(Connection c, String sql, Object... args) throws SQLException {
        return Jdbc.prepare(c, sql, args);
    }

    // ---------------------------------------------------------------- engine API shortcuts

    void createQueue(String queue) {
        assertEquals(1, oneLong("select pgque.create_queue(?)", queue), "create_queue " + queue);
    }

    void subscribe(String queue, String consumer) {
        assertEquals(1, oneLong("select pgque.subscribe(?, ?)", queue, consumer),
                "subscribe " + queue + "/" + consumer);
    }

    void config(String queue, String param, String value) {
        exec("select pgque.set_queue_config(?, ?, ?)", queue, param, value);
    }

    long send(String queue, String payload) {
        return oneLong("select pgque.send(?::text, ?::text)", queue, payload);
    }

    long send(String queue, String type, String payload) {
        return oneLong("select pgque.send(?::text, ?::text, ?::text)", queue, type, payload);
    }

    /** send_batch(text[]) in one transaction; ids aligned with the payloads. */
    List<Long> sendBatch(String queue, String... payloads) {
        List<Long> ids = longArray("select pgque.send_batch(?::text, ?::text[])", queue, payloads);
        assertNotNull(ids, "send_batch returned NULL");
        assertEquals(payloads.length, ids.size(), "send_batch ids aligned with input");
        return ids;
    }

    /**
     * One tick of {@code queue}: {@code force_next_tick} then {@code ticker(queue)}, each committed
     * on its own. Returns the new tick id (fails if the ticker did not tick).
     */
    long tick(String queue) {
        exec("select pgque.force_next_tick(?)", queue);
        Long id = oneLongOrNull("select pgque.ticker(?::text)", queue);
        assertNotNull(id, "ticker(" + queue + ") did not tick after force_next_tick");
        return id;
    }

    List<Msg> receive(String queue, String consumer, int maxReturn) {
        return messages("select * from pgque.receive(?::text, ?::text, ?::int)", queue, consumer, maxReturn);
    }

    List<Msg> readBatch(long batchId, Long afterMsgId, int maxReturn) {
        return messages("select * from pgque.read_batch(?::bigint, ?::bigint, ?::int)", batchId, afterMsgId, maxReturn);
    }

    int ack(long batchId) {
        return (int) oneLong("select pgque.ack(?::bigint)", batchId);
    }

    /** nack of a received message, passed back exactly as received. */
    int nack(Msg m, String retryAfter, String reason) {
        return (int) oneLong("select pgque.nack(?::bigint, row(?::bigint, ?::bigint, ?::text, ?::text, ?::int4,"
                        + " ?::timestamptz, ?::text, ?::text, ?::text, ?::text)::pgque.message, ?::interval, ?::text)",
                m.batchId(), m.msgId(), m.batchId(), m.type(), m.payload(), m.retryCount(), m.createdAt(),
                m.extra1(), m.extra2(), m.extra3(), m.extra4(), retryAfter, reason);
    }

    /**
     * nack naming only a msg_id: every other field of the message is forged (the engine must trust
     * only msg_id and re-read the event from the batch).
     */
    int nackForged(long batchId, long msgId, String retryAfter, String reason) {
        return (int) oneLong("select pgque.nack(?::bigint, row(?::bigint, ?::bigint, 'forged', 'forged', 99, now(),"
                        + " 'forged', 'forged', 'forged', 'forged')::pgque.message, ?::interval, ?::text)",
                batchId, msgId, batchId, retryAfter, reason);
    }

    int maintRetryEvents() {
        return (int) oneLong("select pgque.maint_retry_events()");
    }

    /** The consumer's cursor (sub_last_tick) and the queue's newest tick id. */
    long[] cursorAndLastTick(String queue, String consumer) {
        List<Map<String, Object>> r = rows("""
                select s.sub_last_tick as cursor,
                       (select max(t.tick_id) from pgque.tick t where t.tick_queue = q.queue_id) as last_tick
                  from pgque.subscription s
                  join pgque.queue q on q.queue_id = s.sub_queue
                  join pgque.consumer c on c.co_id = s.sub_consumer
                 where q.queue_name = ? and c.co_name = ?""", queue, consumer);
        assertEquals(1, r.size(), "subscription " + queue + "/" + consumer);
        return new long[] {((Number) r.get(0).get("cursor")).longValue(), ((Number) r.get(0).get("last_tick")).longValue()};
    }

    /**
     * Receives and acks batches until the consumer's cursor reaches the queue's newest tick; returns
     * the events in delivery order (an empty batch yields nothing, so the loop checks the cursor
     * rather than stopping at the first empty receive).
     */
    List<Msg> drain(String queue, String consumer) {
        List<Msg> all = new ArrayList<>();
        for (int round = 0; round < 1000; round++) {
            List<Msg> got = receive(queue, consumer, 100_000);
            if (!got.isEmpty()) {
                all.addAll(got);
                assertEquals(1, ack(got.get(0).batchId()), "ack of a batch just received");
                continue;
            }
            long[] ct = cursorAndLastTick(queue, consumer);
            if (ct[0] >= ct[1]) {
                return all;
            }
        }
        return fail("drain of " + queue + "/" + consumer + " did not reach the newest tick");
    }

    /**
     * The consumer's next non-empty batch (received, NOT acked), skipping empty ones; an empty list
     * once the cursor is at the newest tick.
     */
    List<Msg> nextBatch(String queue, String consumer) {
        for (int round = 0; round < 1000; round++) {
            List<Msg> got = receive(queue, consumer, 100_000);
            if (!got.isEmpty()) {
                return got;
            }
            long[] ct = cursorAndLastTick(queue, consumer);
            if (ct[0] >= ct[1]) {
                return got;
            }
        }
        return fail("no batch for " + queue + "/" + consumer);
    }

    /** Index of the queue's active event table. */
    int curTable(String queue) {
        return (int) oneLong("select queue_cur_table from pgque.get_queue_info(?)", queue);
    }

    /** One rotation attempt: step 1 and step 2, each in its own transaction. */
    void rotateSteps(String queue) {
        exec("select pgque.maint_rotate_tables_step1(?)", queue);
        exec("select pgque.maint_rotate_tables_step2()");
    }

    /** Paces a loop whose duration (not a condition) is what a test is about. */
    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The queue's event rows currently stored in any of its tables (superuser only). */
    long storedEvents(String queue) {
        String pfx = one(String.class, "select queue_data_pfx from pgque.queue where queue_name = ?", queue);
        assertNotNull(pfx, "queue row of " + queue);
        return oneLong("select count(*) from " + pfx);
    }

    // ---------------------------------------------------------------- waiting & errors

    /** Polls {@code condition} every {@code step} until it holds or {@code timeout} passes. */
    static boolean await(Duration timeout, Duration step, BooleanSupplier condition) {
        return Await.within(timeout, step, condition);
    }

    interface SqlAction {
        void run() throws Exception;
    }

    /** Runs {@code action}, asserts it fails with {@code sqlState}; returns the SQL error. */
    static SQLException expectSqlState(String sqlState, SqlAction action) {
        // The engine's code: the SQLSTATE, or the code a P0001 error raised as PgQue does carries.
        return Jdbc.expectSqlState(sqlState, io.pgque.client.PgQueException::sqlStateOf, action::run);
    }

    static SQLException sqlCause(Throwable t) {
        return Jdbc.sqlCause(t);
    }

    /** An SQLException wrapped unchecked, keeping the statement that failed. */
    static final class SqlFailure extends RuntimeException {
        SqlFailure(String sql, SQLException cause) {
            super(cause.getSQLState() + " " + cause.getMessage() + "\n  in: " + sql, cause);
        }
    }
}

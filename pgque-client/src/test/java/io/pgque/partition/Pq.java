/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Thin plain-SQL wrappers over the engine's partition-key and idempotency API. Arguments are cast
 * explicitly so overload resolution never depends on JDBC type inference.
 */
final class Pq {

    private Pq() {
    }

    /** One row of {@code pgque.message}. */
    record Msg(long msgId, long batchId, String type, String payload, Integer retryCount,
               String extra1, String extra2, String extra3, String extra4) {
    }

    /** One row of {@code send_idem}/{@code send_idem_events}. */
    record Idem(Integer ord, Long eventId, Boolean deduped) {
    }

    // ---------------------------------------------------------------- queues, ticks, sending

    static void createQueue(DataSource ds, String q) {
        Db.exec(ds, "select pgque.create_queue(?::text)", q);
    }

    /** force_next_tick, then ticker, each in its own committed transaction. */
    static void tick(DataSource ds, String q) {
        Db.exec(ds, "select pgque.force_next_tick(?::text)", q);
        Long t = Db.one(ds, Long.class, "select pgque.ticker(?::text)", q);
        assertNotNull(t, "ticker did not tick queue " + q + " after force_next_tick");
    }

    static long send(Connection c, String q, String type, String payload, String key) throws SQLException {
        return Db.one(c, Long.class, "select pgque.send(?::text, ?::text, ?::text, ?::text)", q, type, payload, key);
    }

    static long send(DataSource ds, String q, String type, String payload, String key) {
        return Db.with(ds, c -> send(c, q, type, payload, key));
    }

    static long sendJson(DataSource ds, String q, String type, String json, String key) {
        return Db.one(ds, Long.class, "select pgque.send(?::text, ?::text, ?::jsonb, ?::text)", q, type, json, key);
    }

    // ---------------------------------------------------------------- subscriptions

    static void subscribeSlot(DataSource ds, String q, String c, int slot, int n) {
        Db.exec(ds, "select pgque.subscribe_slot(?::text, ?::text, ?::int, ?::int)", q, c, slot, n);
    }

    static void subscribePartitioned(DataSource ds, String q, String c, int n) {
        Db.exec(ds, "select pgque.subscribe_partitioned(?::text, ?::text, ?::int)", q, c, n);
    }

    static String slotConsumer(String c, int slot, int n) {
        return c + "#" + slot + "/" + n;
    }

    // ---------------------------------------------------------------- leases

    static Long claim(Connection c, String q, String co, int slot, String worker, String ttl) throws SQLException {
        if (ttl == null) {
            return Db.one(c, Long.class, "select pgque.claim_slot(?::text, ?::text, ?::int, ?::text)", q, co, slot, worker);
        }
        return Db.one(c, Long.class, "select pgque.claim_slot(?::text, ?::text, ?::int, ?::text, ?::interval)",
                q, co, slot, worker, ttl);
    }

    static Long claim(DataSource ds, String q, String co, int slot, String worker, String ttl) {
        return Db.with(ds, c -> claim(c, q, co, slot, worker, ttl));
    }

    static Long claim(DataSource ds, String q, String co, int slot, String worker) {
        return claim(ds, q, co, slot, worker, null);
    }

    static Boolean release(Connection c, String q, String co, int slot, String worker) throws SQLException {
        return Db.one(c, Boolean.class, "select pgque.release_slot(?::text, ?::text, ?::int, ?::text)", q, co, slot, worker);
    }

    static Boolean release(DataSource ds, String q, String co, int slot, String worker) {
        return Db.with(ds, c -> release(c, q, co, slot, worker));
    }

    // ---------------------------------------------------------------- consuming

    static List<Msg> messages(PreparedStatement ps) throws SQLException {
        List<Msg> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Msg(rs.getLong("msg_id"), rs.getLong("batch_id"), rs.getString("type"),
                        rs.getString("payload"), (Integer) rs.getObject("retry_count"),
                        rs.getString("extra1"), rs.getString("extra2"), rs.getString("extra3"), rs.getString("extra4")));
            }
        }
        return out;
    }

    static List<Msg> query(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Db.bind(c, ps, args);
            return messages(ps);
        }
    }

    static List<Msg> receive(Connection c, String q, String co, int slot, int n, String worker, int max) throws SQLException {
        return query(c, "select * from pgque.receive_partitioned(?::text, ?::text, ?::int, ?::int, ?::text, ?::int)",
                q, co, slot, n, worker, max);
    }

    static List<Msg> receive(DataSource ds, String q, String co, int slot, int n, String worker, int max) {
        return Db.with(ds, c -> receive(c, q, co, slot, n, worker, max));
    }

    static List<Msg> readBatch(Connection c, String q, String co, int slot, int n, String worker, long after, int max)
            throws SQLException {
        return query(c, "select * from pgque.read_batch_partitioned(?::text, ?::text, ?::int, ?::int, ?::text, ?::bigint, ?::int)",
                q, co, slot, n, worker, after, max);
    }

    static List<Msg> readBatch(DataSource ds, String q, String co, int slot, int n, String worker, long after, int max) {
        return Db.with(ds, c -> readBatch(c, q, co, slot, n, worker, after, max));
    }

    static int ack(Connection c, String q, String co, int slot, int n, String worker) throws SQLException {
        return Db.one(c, Integer.class, "select pgque.ack_partitioned(?::text, ?::text, ?::int, ?::int, ?::text)",
                q, co, slot, n, worker);
    }

    static int ack(DataSource ds, String q, String co, int slot, int n, String worker) {
        return Db.with(ds, c -> ack(c, q, co, slot, n, worker));
    }

    static final String MESSAGE_ROW = "row(?::bigint, ?::bigint, ?::text, ?::text, ?::int4, null::timestamptz, "
            + "?::text, ?::text, ?::text, ?::text)::pgque.message";

    static Object[] messageArgs(Msg m) {
        return new Object[]{m.msgId(), m.batchId(), m.type(), m.payload(), m.retryCount(),
                m.extra1(), m.extra2(), m.extra3(), m.extra4()};
    }

    static int nack(Connection c, String q, String co, int slot, int n, String worker, Msg m, String retryAfter)
            throws SQLException {
        List<Object> args = new ArrayList<>(List.of(q, co, slot, n, worker));
        args.addAll(java.util.Arrays.asList(messageArgs(m)));
        args.add(retryAfter);
        return Db.one(c, Integer.class,
                "select pgque.nack_partitioned(?::text, ?::text, ?::int, ?::int, ?::text, " + MESSAGE_ROW + ", ?::interval)",
                args.toArray());
    }

    static int nack(DataSource ds, String q, String co, int slot, int n, String worker, Msg m, String retryAfter) {
        return Db.with(ds, c -> nack(c, q, co, slot, n, worker, m, retryAfter));
    }

    /** pause_partitioned of message {@code m}: true when its key is blocked. */
    static boolean pause(Connection c, String q, String co, int slot, int n, String worker, Msg m, String retryAfter,
                         String reason) throws SQLException {
        List<Object> args = new ArrayList<>(List.of(q, co, slot, n, worker));
        args.addAll(java.util.Arrays.asList(messageArgs(m)));
        args.add(retryAfter);
        args.add(reason);
        return Db.one(c, Boolean.class,
                "select pgque.pause_partitioned(?::text, ?::text, ?::int, ?::int, ?::text, " + MESSAGE_ROW
                        + ", ?::interval, ?::text)", args.toArray());
    }

    static boolean pause(DataSource ds, String q, String co, int slot, int n, String worker, Msg m, String retryAfter) {
        return Db.with(ds, c -> pause(c, q, co, slot, n, worker, m, retryAfter, null));
    }

    /** pgque.blocked_keys of one partitioned consumer, in its order. */
    static List<Map<String, Object>> blockedKeys(DataSource ds, String q, String co) {
        return Db.rows(ds, "select * from pgque.blocked_keys(?::text, ?::text)", q, co);
    }

    /** The whole open (or next) batch of a slot: receive_partitioned, then read_batch_partitioned pages. */
    static List<Msg> receiveWholeBatch(Connection c, String q, String co, int slot, int n, String worker, int page)
            throws SQLException {
        List<Msg> batch = new ArrayList<>(receive(c, q, co, slot, n, worker, page));
        List<Msg> last = batch;
        while (last.size() == page) {
            last = readBatch(c, q, co, slot, n, worker, batch.get(batch.size() - 1).msgId(), page);
            batch.addAll(last);
        }
        return batch;
    }

    static List<Msg> receiveWholeBatch(DataSource ds, String q, String co, int slot, int n, String worker, int page) {
        return Db.with(ds, c -> receiveWholeBatch(c, q, co, slot, n, worker, page));
    }

    /**
     * Drains one slot completely: claim, then batch after batch (receive + paging + ack, each its
     * own transaction on one autocommit session) until receive returns nothing and the slot cursor
     * is at the latest tick; then releases. Returns the events in delivery order.
     */
    static List<Msg> drainSlot(DataSource ds, String q, String co, int slot, int n, String worker, int page) {
        return Db.with(ds, c -> drainSlot(c, q, co, slot, n, worker, page));
    }

    static List<Msg> drainSlot(Connection c, String q, String co, int slot, int n, String worker, int page)
            throws SQLException {
        Long epoch = claim(c, q, co, slot, worker, null);
        assertNotNull(epoch, "drain: slot " + slot + " of " + co + " could not be claimed by " + worker);
        List<Msg> out = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            if (System.nanoTime() > deadline) {
                fail("drain of slot " + slot + " of " + q + "/" + co + " did not finish");
            }
            List<Msg> batch = receiveWholeBatch(c, q, co, slot, n, worker, page);
            if (batch.isEmpty()) {
                if (caughtUp(c, q, slotConsumer(co, slot, n))) {
                    break;
                }
                continue;
            }
            out.addAll(batch);
            int acked = ack(c, q, co, slot, n, worker);
            assertTrue(acked == 1, "ack_partitioned of a non-empty batch returned " + acked);
        }
        assertTrue(Boolean.TRUE.equals(release(c, q, co, slot, worker)), "drain: release_slot by owner returned false");
        return out;
    }

    /** True when the subscription has no open batch and its cursor is the queue's latest tick. */
    static boolean caughtUp(Connection c, String q, String subscriptionConsumer) throws SQLException {
        Boolean b = Db.one(c, Boolean.class,
                "select s.sub_batch is null and s.sub_last_tick = (select max(t.tick_id) from pgque.tick t where t.tick_queue = s.sub_queue)"
                        + " from pgque.subscription s join pgque.consumer c on c.co_id = s.sub_consumer"
                        + " join pgque.queue q on q.queue_id = s.sub_queue"
                        + " where q.queue_name = ? and c.co_name = ?", q, subscriptionConsumer);
        return Boolean.TRUE.equals(b);
    }

    static boolean caughtUp(DataSource ds, String q, String subscriptionConsumer) {
        return Db.with(ds, c -> caughtUp(c, q, subscriptionConsumer));
    }

    // ---------------------------------------------------------------- routing, status

    /** The slot PostgreSQL's own hash puts a key on, computed independently of the engine. */
    static int expectedSlot(DataSource ds, String key, int n) {
        if (key == null) {
            return 0;
        }
        Long s = Db.one(ds, Long.class, "select (hashtextextended(?::text, 0) % ?::int + ?::int) % ?::int", key, n, n, n);
        return s.intValue();
    }

    static List<Map<String, Object>> status(DataSource ds, String q, String co) {
        return Db.rows(ds, "select * from pgque.partition_slot_status where queue_name = ? and consumer = ? order by slot", q, co);
    }

    static Map<String, Object> status(DataSource ds, String q, String co, int slot) {
        List<Map<String, Object>> rows = Db.rows(ds,
                "select * from pgque.partition_slot_status where queue_name = ? and consumer = ? and slot = ?", q, co, slot);
        assertTrue(rows.size() == 1, "partition_slot_status rows for slot " + slot + ": " + rows);
        return rows.get(0);
    }

    static String eventTable(DataSource ds, String q) {
        return Db.one(ds, String.class, "select queue_data_pfx from pgque.queue where queue_name = ?", q);
    }

    // ---------------------------------------------------------------- idempotency

    static Idem sendIdem(Connection c, String q, String type, String payload, String key, String ttl, String partitionKey)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "select event_id, deduped from pgque.send_idem(?::text, ?::text, ?::text, ?::text, ?::interval, ?::text)")) {
            Db.bind(c, ps, q, type, payload, key, ttl, partitionKey);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "send_idem returned no row");
                Idem r = new Idem(null, (Long) rs.getObject(1), (Boolean) rs.getObject(2));
                assertTrue(!rs.next(), "send_idem returned more than one row");
                return r;
            }
        }
    }

    static Idem sendIdem(DataSource ds, String q, String type, String payload, String key, String ttl) {
        return Db.with(ds, c -> sendIdem(c, q, type, payload, key, ttl, null));
    }

    static Idem sendIdemJson(Connection c, String q, String type, String json, String key, String ttl) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "select event_id, deduped from pgque.send_idem(?::text, ?::text, ?::jsonb, ?::text, ?::interval)")) {
            Db.bind(c, ps, q, type, json, key, ttl);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "send_idem returned no row");
                return new Idem(null, (Long) rs.getObject(1), (Boolean) rs.getObject(2));
            }
        }
    }

    static Idem sendIdemJson(DataSource ds, String q, String type, String json, String key, String ttl) {
        return Db.with(ds, c -> sendIdemJson(c, q, type, json, key, ttl));
    }

    static List<Idem> sendIdemEvents(Connection c, String q, String[] types, String[] payloads, String[] keys, String ttl,
                                     String[] partitionKeys, String[] extra3, String[] extra4) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "select ord, event_id, deduped from pgque.send_idem_events(?::text, ?::text[], ?::text[], ?::text[], ?::interval,"
                        + " ?::text[], ?::text[], ?::text[]) order by ord")) {
            Db.bind(c, ps, q, types, payloads, keys, ttl, partitionKeys, extra3, extra4);
            List<Idem> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Idem((Integer) rs.getObject(1), (Long) rs.getObject(2), (Boolean) rs.getObject(3)));
                }
            }
            return out;
        }
    }

    static List<Idem> sendIdemEvents(DataSource ds, String q, String[] types, String[] payloads, String[] keys, String ttl,
                                     String[] partitionKeys, String[] extra3, String[] extra4) {
        return Db.with(ds, c -> sendIdemEvents(c, q, types, payloads, keys, ttl, partitionKeys, extra3, extra4));
    }

    /** Number of event rows (fresh and retried copies) in the queue's tables carrying this idempotency key. */
    static long eventsWithIdemKey(DataSource ds, String q, String key) {
        return Db.count(ds, "select count(*) from " + eventTable(ds, q) + " where ev_extra2 = ?", key);
    }
}

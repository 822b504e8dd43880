/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ENGINE.md section 2: cooperative consumers. Members of one logical consumer share its cursor;
 * each tick window goes to exactly one member; stale members lose their window to a sibling under
 * a fresh batch id; a forced unregister sends the member's window through the nack policy. The
 * concurrency claims are tested with real sessions racing (one JDBC connection per worker).
 */
class CooperativeConsumersIT {

    private static EmbeddedPg.TestDatabase db;
    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        db = EmbeddedPg.newDatabase("coop").installEngine();
        sql = new Sql(db.superuser());
    }

    // ---------------------------------------------------------------- helpers

    /** The cooperative window a member was handed: batch id and tick bounds (all null: none). */
    record Window(Long batchId, Long prevTick, Long nextTick) {
    }

    private static Window nextWindow(Connection c, String q, String consumer, String sub, String deadInterval)
            throws SQLException {
        try (PreparedStatement ps = Sql.prepare(c,
                "select * from pgque.next_batch_custom(?::text, ?::text, ?::text, null, null, null, ?::interval)",
                q, consumer, sub, deadInterval);
             ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
            return new Window((Long) rs.getObject("batch_id"), (Long) rs.getObject("prev_tick_id"),
                    (Long) rs.getObject("next_tick_id"));
        }
    }

    private static Window nextWindow(String q, String consumer, String sub, String deadInterval) {
        try (Connection c = sql.connect()) {
            return nextWindow(c, q, consumer, sub, deadInterval);
        } catch (SQLException e) {
            throw new Sql.SqlFailure("next_batch_custom", e);
        }
    }

    private static List<Msg> receiveCoop(String q, String consumer, String sub) {
        return sql.messages("select * from pgque.receive_coop(?::text, ?::text, ?::text, 100000)", q, consumer, sub);
    }

    private static long ack(Connection c, long batchId) throws SQLException {
        try (PreparedStatement ps = Sql.prepare(c, "select pgque.ack(?::bigint)", batchId); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String role(String q, String consumer) {
        return sql.one(String.class, """
                select s.sub_role from pgque.subscription s
                  join pgque.queue q on q.queue_id = s.sub_queue join pgque.consumer c on c.co_id = s.sub_consumer
                 where q.queue_name = ? and c.co_name = ?""", q, consumer);
    }

    /** One bigint column of a subscription row (column names are fixed strings of this class). */
    private static Long subscriptionColumn(String q, String consumer, String column) {
        return sql.oneLongOrNull("select s." + column + " " + """
                 from pgque.subscription s
                  join pgque.queue q on q.queue_id = s.sub_queue join pgque.consumer c on c.co_id = s.sub_consumer
                 where q.queue_name = ? and c.co_name = ?""", q, consumer);
    }

    private static long rowCount(String q, String consumer) {
        return sql.oneLong("""
                select count(*) from pgque.subscription s
                  join pgque.queue q on q.queue_id = s.sub_queue join pgque.consumer c on c.co_id = s.sub_consumer
                 where q.queue_name = ? and c.co_name = ?""", q, consumer);
    }

    private static long newestTick(String q) {
        return sql.oneLong("select max(t.tick_id) from pgque.tick t join pgque.queue q on q.queue_id = t.tick_queue"
                + " where q.queue_name = ?", q);
    }

    /** The group cursor: the main row's sub_last_tick. */
    private static long groupCursor(String q, String consumer) {
        return sql.cursorAndLastTick(q, consumer)[0];
    }

    private static List<Long> ids(List<Msg> msgs) {
        return msgs.stream().map(Msg::msgId).toList();
    }

    /** Receives and acks as member {@code sub} until the group cursor reaches the newest tick. */
    private static List<Msg> drainCoop(String q, String consumer, String sub) {
        List<Msg> all = new ArrayList<>();
        for (int round = 0; round < 1000; round++) {
            List<Msg> got = receiveCoop(q, consumer, sub);
            if (!got.isEmpty()) {
                all.addAll(got);
                assertEquals(1, sql.ack(got.get(0).batchId()));
            } else if (groupCursor(q, consumer) >= newestTick(q)) {
                return all;
            }
        }
        throw new AssertionError("cooperative drain did not reach the newest tick");
    }

    // ---------------------------------------------------------------- tests

    @Test
    void registrationCreatesMainAndMemberAndNamesAreChecked() {
        String q = "coop_reg";
        sql.createQueue(q);
        assertEquals(1, sql.oneLong("select pgque.register_subconsumer(?, 'c', 'a')", q));
        assertEquals(0, sql.oneLong("select pgque.register_subconsumer(?, 'c', 'a')", q), "already there");
        assertEquals(1, sql.oneLong("select pgque.subscribe_subconsumer(?, 'c', 'b')", q), "the alias adds a member");
        assertEquals("coop_main", role(q, "c"));
        assertEquals("coop_member", role(q, "c.a"));
        assertEquals(1, sql.oneLong("""
                select count(distinct s.sub_id) from pgque.subscription s join pgque.consumer c on c.co_id = s.sub_consumer
                  join pgque.queue q on q.queue_id = s.sub_queue
                 where q.queue_name = ? and c.co_name in ('c', 'c.a', 'c.b')""", q), "members share the main's sub_id");
        assertNull(subscriptionColumn(q, "c.a", "sub_last_tick"), "an idle member has no cursor");

        for (String[] bad : new String[][] {{"", "c", "a"}, {q, "", "a"}, {q, "c", ""}, {q, "c.x", "a"},
                {q, "c", "a.b"}, {q, "c#1", "a"}}) {
            Sql.SqlAction call = () -> sql.exec("select pgque.register_subconsumer(?, ?, ?)", (Object[]) bad);
            Sql.expectSqlState("22023", call);
        }
        Sql.expectSqlState("PQ001", () -> sql.exec("select pgque.register_subconsumer('coop_no_such_queue', 'c', 'a')"));

        // A plain consumer already using a member's name is never taken over.
        sql.subscribe(q, "d.a");
        SQLException e = Sql.expectSqlState("PQ009", () -> sql.exec("select pgque.register_subconsumer(?, 'd', 'a')", q));
        assertTrue(e.getMessage().contains("already registered incompatibly"), e.getMessage());
        assertEquals(0, rowCount(q, "d"), "the failed registration left nothing behind");
    }

    @Test
    void legacyApiIsRefusedOnMainAndMemberWithAMessageSayingWhatToCall() {
        String q = "coop_legacy";
        sql.createQueue(q);
        sql.exec("select pgque.register_subconsumer(?, 'c', 'a')", q);
        sql.send(q, "x");
        sql.tick(q);

        SQLException main = Sql.expectSqlState("PQ009", () -> sql.receive(q, "c", 10));
        assertTrue(main.getMessage().contains("is a cooperative main consumer; use cooperative receive/next_batch with a subconsumer"),
                main.getMessage());
        assertTrue(main.getMessage().contains("receive_coop"), "the hint names the call: " + main.getMessage());
        SQLException mainNext = Sql.expectSqlState("PQ009", () -> sql.exec("select pgque.next_batch(?, 'c')", q));
        assertTrue(mainNext.getMessage().contains("use cooperative receive/next_batch with a subconsumer"),
                mainNext.getMessage());
        SQLException member = Sql.expectSqlState("PQ009", () -> sql.exec("select pgque.next_batch(?, 'c.a')", q));
        assertTrue(member.getMessage().contains("is a cooperative subconsumer; use receive_coop"), member.getMessage());
        SQLException memberReceive = Sql.expectSqlState("PQ009", () -> sql.receive(q, "c.a", 10));
        assertTrue(memberReceive.getMessage().contains("is a cooperative subconsumer; use receive_coop"),
                memberReceive.getMessage());
        Sql.expectSqlState("PQ009", () -> sql.exec("select pgque.register_consumer_at(?, 'c.a', ?::bigint)", q, newestTick(q)));
        SQLException unreg = Sql.expectSqlState("PQ009", () -> sql.exec("select pgque.unsubscribe(?, 'c')", q));
        assertTrue(unreg.getMessage().contains("with registered subconsumers"), unreg.getMessage());

        // The cooperative path still has the event: nothing was consumed by the refused calls.
        assertEquals(1, receiveCoop(q, "c", "a").size());
    }

    @Test
    void memberBatchIsReissuedUntilAckedAndAnEmptyWindowIsFinishedAtOnce() {
        String q = "coop_reissue";
        sql.createQueue(q);
        sql.exec("select pgque.register_subconsumer(?, 'c', 'a')", q);
        assertNull(nextWindow(q, "c", "a", null).batchId(), "no tick after the cursor yet");
        long id = sql.send(q, "x");
        sql.tick(q);
        List<Msg> first = receiveCoop(q, "c", "a");
        assertEquals(List.of(id), ids(first));
        assertEquals(first, receiveCoop(q, "c", "a"), "re-issued, same batch, same events");
        assertEquals(first, sql.readBatch(first.get(0).batchId(), null, 10), "a member batch pages like any other");
        assertEquals(1, sql.ack(first.get(0).batchId()));

        sql.tick(q); // an empty window
        long before = groupCursor(q, "c");
        assertTrue(receiveCoop(q, "c", "a").isEmpty());
        assertTrue(groupCursor(q, "c") > before, "the group cursor moved past the empty window");
        assertNull(subscriptionColumn(q, "c.a", "sub_batch"), "and the member holds no batch");
    }

    /** N workers on one logical consumer, events arriving while they run: every event exactly once. */
    @Test
    void workersReceiveEveryEventExactlyOnceBetweenThem() throws Exception {
        String q = "coop_pool";
        sql.createQueue(q);
        int workers = 4;
        for (int w = 0; w < workers; w++) {
            sql.exec("select pgque.register_subconsumer(?, 'pool', ?)", q, "w" + w);
        }
        Map<Long, String> owner = new ConcurrentHashMap<>();
        List<Long> received = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean producing = new AtomicBoolean(true);
        List<Long> sent = new ArrayList<>();

        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Future<Integer>> results = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            String sub = "w" + w;
            results.add(pool.submit(() -> {
                int batches = 0;
                try (Connection c = sql.connect()) {
                    while (true) {
                        boolean lastRound = !producing.get();
                        List<Msg> got = Sql.messages(c, "select * from pgque.receive_coop(?::text, 'pool', ?::text, 100000)", q, sub);
                        if (!got.isEmpty()) {
                            long batch = got.get(0).batchId();
                            assertNull(owner.putIfAbsent(batch, sub), "batch " + batch + " handed to two members");
                            got.forEach(m -> received.add(m.msgId()));
                            assertEquals(1, ack(c, batch));
                            batches++;
                        } else if (lastRound && groupCursor(q, "pool") >= newestTick(q)) {
                            return batches;
                        } else {
                            Thread.sleep(10); // poll interval while the producer catches up
                        }
                    }
                }
            }));
        }
        for (int round = 0; round < 30; round++) {
            String[] payloads = new String[20];
            for (int i = 0; i < payloads.length; i++) {
                payloads[i] = "r" + round + "-" + i;
            }
            sent.addAll(sql.sendBatch(q, payloads));
            sql.tick(q);
        }
        producing.set(false);
        pool.shutdown();
        int total = 0;
        for (Future<Integer> f : results) {
            total += f.get(3, TimeUnit.MINUTES);
        }
        assertTrue(pool.awaitTermination(1, TimeUnit.MINUTES));

        assertEquals(sent.size(), received.size(), "no event delivered twice, none lost");
        assertEquals(new TreeSet<>(sent), new TreeSet<>(received));
        assertEquals(total, owner.size());
    }

    /**
     * Two members, each in its own session, ask for the next window at the same moment, many
     * times: the windows they get are distinct and chain without a gap from the group cursor to
     * the newest tick.
     */
    @Test
    void twoWorkersRacingForTheNextWindowNeverGetTheSameOneNorSkipOne() throws Exception {
        String q = "coop_race";
        sql.createQueue(q);
        sql.exec("select pgque.register_subconsumer(?, 'c', 'a')", q);
        sql.exec("select pgque.register_subconsumer(?, 'c', 'b')", q);
        long start = groupCursor(q, "c");
        int rounds = 15;
        for (int i = 0; i < 2 * rounds; i++) {
            sql.send(q, "e" + i);
            sql.tick(q);
        }
        long end = newestTick(q);

        CyclicBarrier barrier = new CyclicBarrier(2);
        List<Window> windows = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> fs = new ArrayList<>();
        for (String sub : List.of("a", "b")) {
            fs.add(pool.submit(() -> {
                try (Connection c = sql.connect()) {
                    for (int r = 0; r < rounds; r++) {
                        barrier.await(1, TimeUnit.MINUTES);
                        c.setAutoCommit(false);
                        Window w = nextWindow(c, q, "c", sub, null);
                        c.commit();
                        c.setAutoCommit(true);
                        assertNotNull(w.batchId(), "a window for every caller: " + (2 * rounds) + " were ticked");
                        windows.add(w);
                        assertEquals(1, ack(c, w.batchId()));
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get(3, TimeUnit.MINUTES);
        }
        pool.shutdown();

        List<Window> sorted = new ArrayList<>(windows);
        sorted.sort((x, y) -> Long.compare(x.prevTick(), y.prevTick()));
        assertEquals(2 * rounds, sorted.size());
        long expectPrev = start;
        Set<Long> batchIds = new TreeSet<>();
        for (Window w : sorted) {
            assertEquals(expectPrev, w.prevTick(), "windows chain without gap or overlap: " + sorted);
            assertTrue(w.nextTick() > w.prevTick());
            assertTrue(batchIds.add(w.batchId()), "distinct batch ids");
            expectPrev = w.nextTick();
        }
        assertEquals(end, expectPrev, "every ticked window was handed out");
    }

    @Test
    void staleMemberLosesItsWindowUnderAFreshBatchIdAndItsLateAckDoesNothing() {
        String q = "coop_takeover";
        sql.createQueue(q);
        sql.exec("select pgque.register_subconsumer(?, 'c', 'a')", q);
        sql.exec("select pgque.register_subconsumer(?, 'c', 'b')", q);
        List<Long> sent = sql.sendBatch(q, "t1", "t2");
        sql.tick(q);
        List<Msg> a = receiveCoop(q, "c", "a");
        assertEquals(sent, ids(a));
        long old = a.get(0).batchId();

        // b is idle and a recent: nobody is stale under a generous interval.
        assertNull(nextWindow(q, "c", "b", "1 hour").batchId());
        assertEquals(1, sql.oneLong("select pgque.touch_subconsumer(?, 'c', 'a')", q));
        assertEquals(0, sql.oneLong("select pgque.touch_subconsumer(?, 'c', 'nobody')", q), "touch never creates rows");
        silenceForTwoHours(q, "c.a");

        List<Msg> b = sql.messages("select * from pgque.receive_coop(?::text, 'c', 'b', 100, '1 hour')", q);
        assertEquals(sent, ids(b), "b took over a's window");
        long fresh = b.get(0).batchId();
        assertNotEquals(old, fresh, "the takeover allocates a fresh batch id");

        SQLWarning warning = sql.exec("select pgque.ack(?::bigint)", old);
        assertNotNull(warning, "the stale owner's late ack finds no batch");
        assertEquals(0, sql.ack(old));
        Sql.expectSqlState("PQ003", () -> sql.nack(a.get(0), "0 seconds", null));
        assertEquals(sent, ids(sql.readBatch(fresh, null, 10)), "the new owner's batch is untouched");
        assertEquals(1, sql.ack(fresh));
        assertTrue(receiveCoop(q, "c", "a").isEmpty(), "a has nothing left: its window went to b");
    }

    /**
     * The old owner acks exactly while a sibling tries to take its window over. Both orders are
     * forced, then both are left to race: the window is finished once, either by the old owner
     * (takeover finds nothing) or by the new one (the old owner's ack returns 0).
     */
    @Test
    void staleTakeoverUnderARacingAckFromTheOldOwner() throws Exception {
        String q = "coop_takeover_race";
        sql.createQueue(q);
        sql.exec("select pgque.register_subconsumer(?, 'c', 'a')", q);
        sql.exec("select pgque.register_subconsumer(?, 'c', 'b')", q);

        // 1. The ack holds a's row when b looks for a victim: b skips it and finds no window.
        long oldBatch = openStaleWindowOfA(q);
        try (Connection acker = sql.connect()) {
            acker.setAutoCommit(false);
            assertEquals(1, ack(acker, oldBatch));
            assertNull(nextWindow(q, "c", "b", "0 seconds").batchId(), "a row being acked is never a victim");
            acker.commit();
        }
        assertEquals(groupCursor(q, "c"), newestTick(q));

        // 2. The takeover holds a's row when a acks: the ack waits, then finds no batch.
        oldBatch = openStaleWindowOfA(q);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection taker = sql.connect()) {
            taker.setAutoCommit(false);
            Window w = nextWindow(taker, q, "c", "b", "0 seconds");
            assertNotNull(w.batchId());
            long ob = oldBatch;
            Future<Long> lateAck = pool.submit(() -> {
                try (Connection c = sql.connect()) {
                    return ack(c, ob);
                }
            });
            assertTrue(Sql.await(Duration.ofSeconds(60), Duration.ofMillis(50), () -> sql.oneLong(
                    "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and query like '%pgque.ack%'") > 0),
                    "the old owner's ack waits for the takeover");
            taker.commit();
            assertEquals(0, lateAck.get(1, TimeUnit.MINUTES), "the late ack finished nothing");
            assertEquals(1, sql.ack(w.batchId()));
        }

        // 3. Free race, repeated: exactly one of the two finishes each window; nothing is lost.
        List<Long> delivered = new ArrayList<>();
        List<Long> sent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            sent.add(sql.send(q, "race" + i));
            sql.tick(q);
            List<Msg> a = receiveCoop(q, "c", "a");
            long batch = a.get(0).batchId();
            CyclicBarrier go = new CyclicBarrier(2);
            Future<Long> ackF = pool.submit(() -> {
                try (Connection c = sql.connect()) {
                    go.await(1, TimeUnit.MINUTES);
                    return ack(c, batch);
                }
            });
            Future<Window> takeF = pool.submit(() -> {
                try (Connection c = sql.connect()) {
                    go.await(1, TimeUnit.MINUTES);
                    return nextWindow(c, q, "c", "b", "0 seconds");
                }
            });
            long acked = ackF.get(1, TimeUnit.MINUTES);
            Window took = takeF.get(1, TimeUnit.MINUTES);
            if (acked == 1) {
                assertNull(took.batchId(), "acked by a, so b had nothing to take");
                delivered.addAll(ids(a));
            } else {
                assertNotNull(took.batchId(), "a's ack lost, so b owns the window");
                delivered.addAll(ids(sql.readBatch(took.batchId(), null, 10)));
                assertEquals(1, sql.ack(took.batchId()));
            }
        }
        pool.shutdown();
        assertEquals(sent, delivered, "each window finished exactly once, none lost");
        assertEquals(groupCursor(q, "c"), newestTick(q));
    }

    /** Backdates a member's last sign of life, so a dead interval under two hours makes it stale. */
    private static void silenceForTwoHours(String q, String member) {
        sql.exec("update pgque.subscription set sub_active = sub_active - interval '2 hours'"
                + " where sub_consumer = (select co_id from pgque.consumer where co_name = ?)"
                + " and sub_queue = (select queue_id from pgque.queue where queue_name = ?)", member, q);
    }

    private static long openStaleWindowOfA(String q) {
        sql.send(q, "w");
        sql.tick(q);
        List<Msg> a = receiveCoop(q, "c", "a");
        assertEquals(1, a.size());
        return a.get(0).batchId();
    }

    @Test
    void forcedUnregisterRoutesTheBatchThroughRetryAndDeadLetterLosingNothing() {
        String q = "coop_forced";
        sql.createQueue(q);
        sql.config(q, "max_retries", "1");
        sql.exec("select pgque.register_subconsumer(?, 'fc', 'a')", q);
        sql.exec("select pgque.register_subconsumer(?, 'fc', 'b')", q);

        // e1 is delivered, nacked, redelivered (retry_count 1 = max_retries) beside e2 and e3.
        long e1 = sql.send(q, "e1");
        sql.tick(q);
        List<Msg> first = receiveCoop(q, "fc", "a");
        assertEquals(1, sql.nack(first.get(0), "0 seconds", null));
        assertEquals(1, sql.ack(first.get(0).batchId()));
        assertEquals(1, sql.maintRetryEvents());
        List<Long> fresh = sql.sendBatch(q, "e2", "e3");
        sql.tick(q);
        List<Msg> held = receiveCoop(q, "fc", "a");
        assertEquals(3, held.size(), "e1 again, e2, e3: " + held);
        long heldBatch = held.get(0).batchId();

        SQLException refused = Sql.expectSqlState("55000",
                () -> sql.exec("select pgque.unregister_subconsumer(?, 'fc', 'a')", q));
        assertTrue(refused.getMessage().contains("without batch_handling = 1"), refused.getMessage());
        Sql.expectSqlState("22023", () -> sql.exec("select pgque.unregister_subconsumer(?, 'fc', 'a', 2)", q));
        assertEquals(1, sql.oneLong("select pgque.unregister_subconsumer(?, 'fc', 'a', 1)", q));
        assertEquals(0, sql.oneLong("select pgque.unsubscribe_subconsumer(?, 'fc', 'a', 1)", q), "nothing left to match");
        assertEquals(0, rowCount(q, "fc.a"));
        assertEquals(0, sql.oneLong("select count(*) from pgque.consumer where co_name = 'fc.a'"), "orphan consumer row removed");
        assertEquals("coop_main", role(q, "fc"), "b is still a member");

        // The old batch id is dead.
        assertEquals(0, sql.ack(heldBatch));

        // e1 was at max_retries: dead letter, attributed to the main consumer.
        List<Map<String, Object>> dead = sql.rows("select d.ev_id, c.co_name from pgque.dead_letter d"
                + " join pgque.consumer c on c.co_id = d.dl_consumer_id join pgque.queue q on q.queue_id = d.dl_queue_id"
                + " where q.queue_name = ?", q);
        assertEquals(1, dead.size(), dead.toString());
        assertEquals(e1, ((Number) dead.get(0).get("ev_id")).longValue());
        assertEquals("fc", dead.get(0).get("co_name"));

        // e2 and e3 wait for retry (60 s); made due, they reach the remaining member.
        assertEquals(2, sql.oneLong("select count(*) from pgque.retry_queue r join pgque.queue q on q.queue_id = r.ev_queue"
                + " where q.queue_name = ? and r.ev_retry_after > now() + interval '50 seconds'", q));
        sql.exec("update pgque.retry_queue set ev_retry_after = now()");
        assertEquals(2, sql.maintRetryEvents());
        sql.tick(q);
        List<Msg> again = drainCoop(q, "fc", "b");
        assertEquals(fresh, ids(again));
        again.forEach(m -> assertEquals(Integer.valueOf(1), m.retryCount()));
    }

    @Test
    void normalConsumerConvertsToCooperativeAndBack() {
        String q = "coop_convert";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        long before = sql.send(q, "before");
        sql.tick(q);
        List<Msg> open = sql.receive(q, "c", 10);

        SQLException explicit = Sql.expectSqlState("55000", () -> sql.exec("select pgque.register_subconsumer(?, 'c', 'a')", q));
        assertTrue(explicit.getMessage().contains("explicit conversion is required"), explicit.getMessage());
        SQLException active = Sql.expectSqlState("55000",
                () -> sql.exec("select pgque.register_subconsumer(?, 'c', 'a', true)", q));
        assertTrue(active.getMessage().contains("cannot convert active normal consumer"), active.getMessage());
        Sql.expectSqlState("55000", () -> receiveCoop(q, "c", "a"));
        assertEquals(List.of(before), ids(open));
        assertEquals(1, sql.ack(open.get(0).batchId()));

        assertEquals(1, sql.oneLong("select pgque.register_subconsumer(?, 'c', 'a', i_convert_normal => true)", q));
        assertEquals("coop_main", role(q, "c"));
        List<Long> during = sql.sendBatch(q, "d1", "d2");
        sql.tick(q);
        assertEquals(during, ids(drainCoop(q, "c", "a")), "the group continues from the converted cursor");

        assertEquals(1, sql.oneLong("select pgque.unsubscribe(?, 'c.a')", q), "unsubscribe of an idle member delegates");
        assertEquals("normal", role(q, "c"), "last member gone: the main is a plain consumer again");
        List<Long> after = sql.sendBatch(q, "a1", "a2");
        sql.tick(q);
        assertEquals(after, ids(sql.drain(q, "c")), "plain receive resumes where the group stopped");
    }

    /**
     * Rotation: idle members have no cursor and never pin it; a member holding a window pins it at
     * the window's start until it acks, and its events survive.
     */
    @Test
    void busyMemberPinsRotationIdleMembersDoNot() {
        String q = "coop_rotation";
        sql.createQueue(q);
        sql.exec("select pgque.register_subconsumer(?, 'c', 'a')", q);
        sql.exec("select pgque.register_subconsumer(?, 'c', 'b')", q);
        sql.config(q, "rotation_period", "1 second");
        sql.send(q, "warm-up");
        sql.tick(q);
        drainCoop(q, "c", "b");

        int t0 = sql.curTable(q);
        assertTrue(rotatesWithin(q, Duration.ofSeconds(20)), "idle members do not pin rotation");
        int t1 = sql.curTable(q);
        assertNotEquals(t0, t1);

        List<Long> held = sql.sendBatch(q, "h1", "h2");
        sql.tick(q);
        List<Msg> a = receiveCoop(q, "c", "a");
        assertEquals(held, ids(a));
        long until = System.nanoTime() + Duration.ofMillis(4_000).toNanos();
        int attempts = 0;
        while (attempts < 4 || System.nanoTime() < until) {
            sql.send(q, "n" + attempts);
            sql.tick(q);
            drainCoop(q, "c", "b");
            sql.rotateSteps(q);
            attempts++;
            assertEquals(t1, sql.curTable(q), "a busy member's window pins rotation (attempt " + attempts + ")");
            Sql.pause(150);
        }
        assertTrue(attempts >= 4, "enough attempts: " + attempts);
        assertEquals(held, ids(sql.readBatch(a.get(0).batchId(), null, 10)), "the held window's events survived");
        assertEquals(1, sql.ack(a.get(0).batchId()));
        assertTrue(rotatesWithin(q, Duration.ofSeconds(20)), "after the ack rotation resumes");
    }

    private static boolean rotatesWithin(String q, Duration timeout) {
        int before = sql.curTable(q);
        return Sql.await(timeout, Duration.ofMillis(100), () -> {
            sql.tick(q);
            drainCoop(q, "c", "b");
            sql.rotateSteps(q);
            return sql.curTable(q) != before;
        });
    }

    @Test
    void forcedDropOfTheQueueTakesTheGroupWithItEvenWithAWindowOpen() {
        String q = "coop_drop";
        sql.createQueue(q);
        sql.exec("select pgque.register_subconsumer(?, 'dc', 'a')", q);
        sql.exec("select pgque.register_subconsumer(?, 'dc', 'b')", q);
        sql.send(q, "x");
        sql.tick(q);
        assertEquals(1, receiveCoop(q, "dc", "a").size());
        Sql.expectSqlState("55006", () -> sql.exec("select pgque.drop_queue(?)", q));
        assertEquals(1, sql.oneLong("select pgque.drop_queue(?, true)", q));
        assertEquals(0, sql.oneLong("select count(*) from pgque.consumer where co_name in ('dc', 'dc.a', 'dc.b')"));
        assertEquals(0, sql.oneLong("select count(*) from pgque.retry_queue r"
                + " where not exists (select 1 from pgque.queue q where q.queue_id = r.ev_queue)"));
    }

    /**
     * A member dead-letters one event of its batch (an event no retry can fix), the rest of the
     * batch is acked as usual; after a sibling took the batch over, the old owner's call is
     * refused instead of touching the new owner's batch.
     */
    @Test
    void memberDeadLettersOneEventOfItsBatchAndNotAfterATakeover() {
        String q = "coop_dead_letter";
        sql.createQueue(q);
        sql.exec("select pgque.register_subconsumer(?, 'dl', 'a')", q);
        sql.exec("select pgque.register_subconsumer(?, 'dl', 'b')", q);
        List<Long> sent = sql.sendBatch(q, "ok", "not json");
        sql.tick(q);
        List<Msg> a = receiveCoop(q, "dl", "a");
        assertEquals(sent, ids(a));
        long bad = sent.get(1);

        Sql.expectSqlState("22023", () -> sql.exec("select pgque.dead_letter_subconsumer(?, 'dl', 'a', ?, '')", q, bad));
        Sql.expectSqlState("PQ008", () -> sql.exec("select pgque.dead_letter_subconsumer(?, 'dl', 'a', ?, 'r')", q,
                bad + 1000));
        Sql.expectSqlState("PQ003", () -> sql.exec("select pgque.dead_letter_subconsumer(?, 'dl', 'b', ?, 'r')", q, bad));
        Sql.expectSqlState("PQ002", () -> sql.exec("select pgque.dead_letter_subconsumer(?, 'dl', 'nobody', ?, 'r')",
                q, bad));
        assertEquals(1, sql.oneLong("select pgque.dead_letter_subconsumer(?, 'dl', 'a', ?, 'unreadable payload')",
                q, bad));
        assertEquals(1, sql.oneLong("select pgque.dead_letter_subconsumer(?, 'dl', 'a', ?, 'unreadable payload')",
                q, bad), "repeating it is a no-op that succeeds");
        assertEquals(1, sql.ack(a.get(0).batchId()));
        List<Map<String, Object>> dead = sql.rows("select d.ev_id, d.dl_reason, c.co_name from pgque.dead_letter d"
                + " join pgque.consumer c on c.co_id = d.dl_consumer_id join pgque.queue q on q.queue_id = d.dl_queue_id"
                + " where q.queue_name = ?", q);
        assertEquals(1, dead.size(), dead.toString());
        assertEquals(bad, ((Number) dead.get(0).get("ev_id")).longValue());
        assertEquals("unreadable payload", dead.get(0).get("dl_reason"));
        assertEquals("dl", dead.get(0).get("co_name"), "attributed to the group, so it outlives the member");
        assertEquals(0, sql.oneLong("select count(*) from pgque.retry_queue r join pgque.queue q"
                + " on q.queue_id = r.ev_queue where q.queue_name = ?", q), "dead-lettered, not retried");

        long late = sql.send(q, "late");
        sql.tick(q);
        assertEquals(List.of(late), ids(receiveCoop(q, "dl", "a")));
        silenceForTwoHours(q, "dl.a");
        List<Msg> b = sql.messages("select * from pgque.receive_coop(?::text, 'dl', 'b', 100, '1 hour')", q);
        assertEquals(List.of(late), ids(b), "b took a's batch over");
        Sql.expectSqlState("PQ003", () -> sql.exec("select pgque.dead_letter_subconsumer(?, 'dl', 'a', ?, 'r')", q,
                late));
        assertEquals(1, sql.ack(b.get(0).batchId()));
        assertEquals(1, sql.oneLong("select count(*) from pgque.dead_letter d join pgque.queue q"
                + " on q.queue_id = d.dl_queue_id where q.queue_name = ?", q), "the stale call added nothing");
    }

    @Test
    void readerRoleRunsTheCooperativeApiWriterCannot() {
        String q = "coop_roles";
        sql.createQueue(q);
        for (String r : List.of("coop_test_reader", "coop_test_writer")) {
            sql.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + r + "') then"
                    + " create role " + r + " login; end if; end $$");
        }
        sql.exec("grant pgque_reader to coop_test_reader");
        sql.exec("grant pgque_writer to coop_test_writer");
        Sql reader = new Sql(db.as("coop_test_reader"));
        Sql writer = new Sql(db.as("coop_test_writer"));

        assertEquals(1, reader.oneLong("select pgque.register_subconsumer(?, 'c', 'a')", q));
        long id = writer.send(q, "x");
        sql.tick(q);
        List<Msg> got = reader.messages("select * from pgque.receive_coop(?::text, 'c', 'a')", q);
        assertEquals(List.of(id), ids(got));
        assertEquals(1, reader.oneLong("select pgque.touch_subconsumer(?, 'c', 'a')", q));
        assertEquals(1, reader.oneLong("select pgque.dead_letter_subconsumer(?, 'c', 'a', ?, 'unreadable')", q, id));
        assertEquals(1, reader.ack(got.get(0).batchId()));
        assertEquals(1, reader.oneLong("select pgque.unregister_subconsumer(?, 'c', 'a')", q));

        Sql.expectSqlState("42501", () -> writer.exec("select pgque.register_subconsumer(?, 'c', 'w')", q));
        Sql.expectSqlState("42501", () -> writer.exec("select * from pgque.receive_coop(?::text, 'c', 'w')", q));
        Sql.expectSqlState("42501", () -> reader.exec("select pgque.coop_check_names('a', 'b', 'c')"));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.partition.Pq.Idem;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Producer idempotency beyond the acceptance script: ENGINE.md 6.4's send_idem facts, the
 * brief's key-scope hazard, the two-session dedup race (commit and rollback), the wall-clock
 * rules of section 4, and this project's batch form send_idem_events.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SendIdemBehaviourIT {

    private static DataSource ds;
    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static ExecutorService pool;

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("idem_unit").installEngine().superuser();
        pool = Executors.newCachedThreadPool();
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
    }

    private static String newQueue(String prefix) {
        String q = prefix + "_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        return q;
    }

    private static Map<String, Object> event(String q, long id) {
        List<Map<String, Object>> rows = Db.rows(ds, "select * from " + Pq.eventTable(ds, q) + " where ev_id = ?", id);
        assertEquals(1, rows.size(), "event " + id + ": " + rows);
        return rows.get(0);
    }

    private static long idemRows(String q) {
        return Db.count(ds, "select count(*) from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id where q.queue_name = ?", q);
    }

    // ================================================================== 6.4 send_idem facts

    @Test
    void u64_idem_key_goes_to_extra2_and_partition_key_to_extra1() {
        String q = newQueue("q_extras");
        Idem r = Db.with(ds, c -> Pq.sendIdem(c, q, "evt", "payload", "idem-1", "1 hour", "tenant-7"));
        Map<String, Object> ev = event(q, r.eventId());
        assertEquals("idem-1", ev.get("ev_extra2"));
        assertEquals("tenant-7", ev.get("ev_extra1"));
        assertEquals("payload", ev.get("ev_data"));
    }

    @Test
    void u64_null_idem_key_is_rejected() {
        String q = newQueue("q_nullkey");
        var e = Db.assertSqlState("22023", () -> Pq.sendIdem(ds, q, "evt", "p", null, "1 hour"));
        assertTrue(e.getMessage().contains("idem_key must not be null"), e.getMessage());
    }

    @Test
    void u64_failed_append_releases_the_claim() {
        String q = newQueue("q_failappend");
        Db.exec(ds, "select pgque.set_queue_config(?::text, 'disable_insert', 'true')", q);
        var e = Db.assertSqlError(() -> Pq.sendIdem(ds, q, "evt", "p", "k-fail", "1 hour"));
        assertTrue(e.getMessage().contains("Insert into queue disallowed"), e.getMessage());
        assertEquals(0, idemRows(q), "the claim must vanish with the failed append");
        Db.exec(ds, "select pgque.set_queue_config(?::text, 'disable_insert', 'false')", q);
        Idem r = Pq.sendIdem(ds, q, "evt", "p", "k-fail", "1 hour");
        assertEquals(Boolean.FALSE, r.deduped(), "the same key inserts normally afterwards");
        assertNotNull(r.eventId());
    }

    @Test
    void u64_maint_idem_deletes_only_expired_rows() {
        String q = newQueue("q_gc");
        Pq.sendIdem(ds, q, "evt", "p", "short", "1 second");
        Pq.sendIdem(ds, q, "evt", "p", "long", "1 hour");
        Db.await(Duration.ofSeconds(10), Duration.ofMillis(100), "the short claim to expire", () ->
                Boolean.TRUE.equals(Db.one(ds, Boolean.class,
                        "select i.expires_at < clock_timestamp() from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id"
                                + " where q.queue_name = ? and i.idem_key = 'short'", q)));
        Db.exec(ds, "select pgque.maint_idem(?::text)", q);
        assertEquals(List.of("long"), Db.rows(ds, "select i.idem_key from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id"
                + " where q.queue_name = ?", q).stream().map(r -> r.get("idem_key")).toList());
        assertEquals(Integer.valueOf(0), Db.one(ds, Integer.class, "select pgque.maint_idem()"), "nothing left to reap");
    }

    @Test
    void u64_drop_queue_cascades_claim_rows() {
        String q = newQueue("q_dropidem");
        Pq.sendIdem(ds, q, "evt", "p", "k1", "1 hour");
        long qid = Db.one(ds, Integer.class, "select queue_id from pgque.queue where queue_name = ?", q);
        assertEquals(1, Db.one(ds, Integer.class, "select pgque.drop_queue(?::text)", q));
        assertEquals(0, Db.count(ds, "select count(*) from pgque.idem where queue_id = ?", (int) qid));
    }

    @Test
    void send_idem_argument_checks() {
        String q = newQueue("q_args");
        Db.assertSqlState("22023", () -> Pq.sendIdem(ds, q, "evt", "p", "k", null));
        Db.assertSqlState("22023", () -> Pq.sendIdem(ds, q, "evt", "p", "k", "0 seconds"));
        Db.assertSqlState("22023", () -> Pq.sendIdem(ds, q, "evt", "p", "k", "-1 hour"));
        Db.assertSqlState("PQ001", () -> Pq.sendIdem(ds, "no_such_queue", "evt", "p", "k", "1 hour"));
    }

    @Test
    void send_idem_rejects_infinite_ttl() {
        // Infinite intervals exist from PostgreSQL 17 on; before that no caller can pass one.
        assumeTrue(Db.serverMajor(ds) >= 17, "no infinite intervals before PostgreSQL 17");
        String q = newQueue("q_infttl");
        Db.assertSqlState("22023", () -> Pq.sendIdem(ds, q, "evt", "p", "k", "infinity"));
        Db.assertSqlState("22023", () -> Pq.sendIdemEvents(ds, q, arr("t"), arr("p"), arr("k"), "infinity", null, null, null));
    }

    @Test
    void send_idem_default_ttl_is_one_hour() {
        String q = newQueue("q_defttl");
        Db.one(ds, Long.class, "select event_id from pgque.send_idem(?::text, ?::text, ?::text, ?::text)", q, "evt", "p", "k-def");
        Boolean ok = Db.one(ds, Boolean.class, "select i.expires_at between clock_timestamp() + interval '59 minutes'"
                + " and clock_timestamp() + interval '61 minutes' from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id"
                + " where q.queue_name = ? and i.idem_key = 'k-def'", q);
        assertEquals(Boolean.TRUE, ok);
    }

    @Test
    void maint_reaps_expired_keys_of_every_queue_and_a_send_never_writes_the_queue_row() {
        String q = newQueue("q_extramaint");
        Pq.sendIdem(ds, q, "evt", "p", "k", "1 millisecond");
        Pq.sendIdem(ds, q, "evt", "p", "k2", "1 hour");
        assertEquals("{pgque.maint_idem}", Db.one(ds, String.class, "select queue_extra_maint::text from pgque.queue where queue_name = ?", q),
                "listed from the queue's creation (PgQue's first send_idem lists it): a send never writes the row rotation locks");
        Db.await(java.time.Duration.ofSeconds(30), java.time.Duration.ofMillis(10), "key k to expire", () ->
                Db.count(ds, "select count(*) from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id"
                        + " where q.queue_name = ? and i.expires_at < clock_timestamp()", q) == 1);
        Db.exec(ds, "select pgque.maint()");
        assertEquals(1, Db.count(ds, "select count(*) from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id"
                + " where q.queue_name = ?", q), "maint() reaped the expired key, kept the live one");
    }

    // ================================================================== the brief's key-scope hazard

    @Test
    void keyScopeHazard_migrateTenantKeySuppressesV2_useTenantAndVersion() {
        String q = newQueue("q_hazard");
        // Wrong: the key names the entity only. v2 inside the TTL is silently "deduped" to v1.
        Idem v1 = Pq.sendIdemJson(ds, q, "migrate", "{\"tenant\": \"t1\", \"version\": 1}", "migrate:t1", "1 hour");
        Idem v2 = Pq.sendIdemJson(ds, q, "migrate", "{\"tenant\": \"t1\", \"version\": 2}", "migrate:t1", "1 hour");
        assertEquals(Boolean.FALSE, v1.deduped());
        assertEquals(Boolean.TRUE, v2.deduped(), "hazard: v2 is suppressed as a duplicate of v1");
        assertEquals(v1.eventId(), v2.eventId(), "hazard: v2's caller is handed v1's id");
        assertEquals(1, Pq.eventsWithIdemKey(ds, q, "migrate:t1"), "only v1 is in the log");
        assertTrue(((String) event(q, v1.eventId()).get("ev_data")).contains("\"version\": 1"));
        // Right: the key names the effect (tenant + version). Both migrations are appended.
        Idem r1 = Pq.sendIdemJson(ds, q, "migrate", "{\"tenant\": \"t1\", \"version\": 1}", "migrate:t1:v1", "1 hour");
        Idem r2 = Pq.sendIdemJson(ds, q, "migrate", "{\"tenant\": \"t1\", \"version\": 2}", "migrate:t1:v2", "1 hour");
        assertEquals(Boolean.FALSE, r1.deduped());
        assertEquals(Boolean.FALSE, r2.deduped());
        assertNotEquals(r1.eventId(), r2.eventId());
    }

    // ================================================================== wall clock (section 4 fixes)

    @Test
    void ttl_expires_by_wall_clock_inside_one_long_transaction() {
        String q = newQueue("q_wallclock");
        Db.inTx(ds, c -> {
            Idem first = Pq.sendIdem(c, q, "evt", "p", "k-wall", "1 second", null);
            Db.exec(c, "select pg_sleep(1.2)");
            Idem second = Pq.sendIdem(c, q, "evt", "p", "k-wall", "1 second", null);
            assertEquals(Boolean.FALSE, first.deduped());
            assertEquals(Boolean.FALSE, second.deduped(), "expiry must use clock_timestamp(), not the transaction start");
            assertNotEquals(first.eventId(), second.eventId());
            return null;
        });
    }

    @Test
    void expiry_window_starts_at_the_wall_clock_of_the_send() {
        String q = newQueue("q_window");
        Db.inTx(ds, c -> {
            Db.exec(c, "select pg_sleep(1.2)");
            Pq.sendIdem(c, q, "evt", "p", "k-window", "1 hour", null);
            assertEquals(Boolean.TRUE, Db.one(c, Boolean.class,
                    "select i.expires_at >= now() + interval '1 hour 1 second' from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id"
                            + " where q.queue_name = ? and i.idem_key = 'k-window'", q),
                    "expires_at must be computed from clock_timestamp(), not from the transaction start");
            return null;
        });
    }

    // ================================================================== two-session race

    @Test
    void race_same_key_second_session_waits_then_dedups_to_first_id() throws Exception {
        String q = warmQueue("q_race_commit");
        // a is closed first, so its locks go before b (which may be waiting on them) is closed
        try (Connection b = ds.getConnection(); Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(true);
            int bPid = Db.one(b, Integer.class, "select pg_backend_pid()");
            Idem ra = Pq.sendIdem(a, q, "evt", "from A", "race-key", "1 hour", null);
            Future<Idem> fb = pool.submit(() -> Pq.sendIdem(b, q, "evt", "from B", "race-key", "1 hour", null));
            awaitLockWait(bPid);
            assertFalse(fb.isDone(), "B must wait for A's uncommitted claim");
            a.commit();
            Idem rb = fb.get(10, TimeUnit.SECONDS);
            assertEquals(Boolean.FALSE, ra.deduped());
            assertEquals(Boolean.TRUE, rb.deduped());
            assertEquals(ra.eventId(), rb.eventId(), "both sessions must get the same id");
            assertEquals(1, Pq.eventsWithIdemKey(ds, q, "race-key"), "exactly one event with that idempotency key");
        }
    }

    @Test
    void race_same_key_first_session_rolls_back_second_claims_and_inserts() throws Exception {
        String q = warmQueue("q_race_rollback");
        // a is closed first, so its locks go before b (which may be waiting on them) is closed
        try (Connection b = ds.getConnection(); Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(true);
            int bPid = Db.one(b, Integer.class, "select pg_backend_pid()");
            Idem ra = Pq.sendIdem(a, q, "evt", "from A", "race-key", "1 hour", null);
            Future<Idem> fb = pool.submit(() -> Pq.sendIdem(b, q, "evt", "from B", "race-key", "1 hour", null));
            awaitLockWait(bPid);
            a.rollback();
            Idem rb = fb.get(10, TimeUnit.SECONDS);
            assertEquals(Boolean.FALSE, ra.deduped());
            assertEquals(Boolean.FALSE, rb.deduped(), "A's claim vanished with its rollback; B claims");
            assertNotNull(rb.eventId());
            assertEquals(1, Pq.eventsWithIdemKey(ds, q, "race-key"));
            assertEquals("from B", event(q, rb.eventId()).get("ev_data"));
        }
    }

    @Test
    void race_rollback_expiry_is_computed_after_the_lock_wait() throws Exception {
        String q = warmQueue("q_race_expiry");
        // a is closed first, so its locks go before b (which may be waiting on them) is closed
        try (Connection b = ds.getConnection(); Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(true);
            int bPid = Db.one(b, Integer.class, "select pg_backend_pid()");
            Pq.sendIdem(a, q, "evt", "from A", "race-key", "10 seconds", null);
            Future<Idem> fb = pool.submit(() -> Pq.sendIdem(b, q, "evt", "from B", "race-key", "10 seconds", null));
            awaitLockWait(bPid);
            Db.exec(a, "select pg_sleep(1.5)"); // B keeps waiting while A holds the key
            OffsetDateTime released = Db.one(a, OffsetDateTime.class, "select clock_timestamp()");
            a.rollback();
            assertEquals(Boolean.FALSE, fb.get(10, TimeUnit.SECONDS).deduped());
            OffsetDateTime expires = Db.one(ds, OffsetDateTime.class, "select i.expires_at from pgque.idem i"
                    + " join pgque.queue q on q.queue_id = i.queue_id where q.queue_name = ? and i.idem_key = 'race-key'", q);
            assertFalse(expires.isBefore(released.plusSeconds(10)),
                    "B's window must start when B got the key (" + released + " + 10 s), not before its wait: " + expires);
        }
    }

    @Test
    void race_under_repeatable_read_the_waiting_session_gets_a_serialization_failure() throws Exception {
        String q = warmQueue("q_race_rr");
        // a is closed first, so its locks go before b (which may be waiting on them) is closed
        try (Connection b = ds.getConnection(); Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            b.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            int bPid = Db.one(b, Integer.class, "select pg_backend_pid()");
            b.commit();
            Idem ra = Pq.sendIdem(a, q, "evt", "from A", "race-key", "1 hour", null);
            Future<Idem> fb = pool.submit(() -> Pq.sendIdem(b, q, "evt", "from B", "race-key", "1 hour", null));
            awaitLockWait(bPid);
            a.commit();
            Db.assertSqlState("40001", () -> fb.get(10, TimeUnit.SECONDS));
            b.rollback();
            assertEquals(Boolean.FALSE, ra.deduped());
            assertEquals(1, Pq.eventsWithIdemKey(ds, q, "race-key"));
            // The documented remedy: retry, and the retry dedups.
            b.setAutoCommit(true);
            Idem retried = Pq.sendIdem(b, q, "evt", "from B", "race-key", "1 hour", null);
            assertEquals(Boolean.TRUE, retried.deduped());
            assertEquals(ra.eventId(), retried.eventId());
        }
    }

    @Test
    void maint_idem_reaps_10000_per_call_and_says_when_to_call_again() {
        String q = newQueue("q_gc_big");
        int n = 10_001;
        String[] types = new String[n];
        String[] payloads = new String[n];
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            types[i] = "t";
            payloads[i] = "p";
            keys[i] = "gc-" + i;
        }
        assertEquals(n, Pq.sendIdemEvents(ds, q, types, payloads, keys, "1 second", null, null, null).size());
        Db.await(Duration.ofSeconds(10), Duration.ofMillis(100), "the claims to expire", () ->
                Boolean.TRUE.equals(Db.one(ds, Boolean.class, "select bool_and(i.expires_at < clock_timestamp())"
                        + " from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id where q.queue_name = ?", q)));
        assertEquals(1, Db.one(ds, Integer.class, "select pgque.maint_idem(?::text)", q), "a full batch: call again");
        assertEquals(1, idemRows(q));
        assertEquals(0, Db.one(ds, Integer.class, "select pgque.maint_idem(?::text)", q));
        assertEquals(0, idemRows(q));
    }

    /**
     * A queue that has already seen a committed send_idem, so its first-use set-up (registering
     * maint_idem on the queue row) is done and racing senders meet on the idem key itself.
     */
    private static String warmQueue(String prefix) {
        String q = newQueue(prefix);
        Pq.sendIdem(ds, q, "evt", "warm-up", "warm-up-key", "1 hour");
        return q;
    }

    private static void awaitLockWait(int pid) {
        Db.await(Duration.ofSeconds(10), Duration.ofMillis(20), "session " + pid + " to wait on a lock", () ->
                "Lock".equals(Db.one(ds, String.class, "select wait_event_type from pg_stat_activity where pid = ?", pid)));
    }

    // ================================================================== send_idem_events (addition)

    private static String[] arr(String... v) {
        return v;
    }

    @Test
    void send_idem_events_returns_ids_aligned_with_input_positions() {
        String q = newQueue("q_ev_align");
        List<Idem> r = Pq.sendIdemEvents(ds, q, arr("t1", "t2", "t3"), arr("p1", "p2", "p3"), arr("k1", "k2", "k3"), "1 hour",
                arr("pk1", null, "pk3"), arr("x3a", "x3b", null), arr(null, "x4b", "x4c"));
        assertEquals(3, r.size(), "rows: " + r);
        for (int i = 0; i < 3; i++) {
            Idem row = r.get(i);
            assertEquals(i + 1, row.ord());
            assertEquals(Boolean.FALSE, row.deduped());
            Map<String, Object> ev = event(q, row.eventId());
            assertEquals("p" + (i + 1), ev.get("ev_data"), "ord " + (i + 1));
            assertEquals("t" + (i + 1), ev.get("ev_type"));
            assertEquals("k" + (i + 1), ev.get("ev_extra2"));
        }
        assertEquals("pk1", event(q, r.get(0).eventId()).get("ev_extra1"));
        assertEquals(null, event(q, r.get(1).eventId()).get("ev_extra1"));
        assertEquals("x3a", event(q, r.get(0).eventId()).get("ev_extra3"));
        assertEquals("x4c", event(q, r.get(2).eventId()).get("ev_extra4"));
        assertEquals(3, new HashSet<>(r.stream().map(Idem::eventId).toList()).size());
        // Ids ascend with input position, so one key's events sent together keep their order.
        assertTrue(r.get(0).eventId() < r.get(1).eventId() && r.get(1).eventId() < r.get(2).eventId(), "ids: " + r);
    }

    @Test
    void send_idem_events_rejects_arrays_of_different_lengths() {
        String q = newQueue("q_ev_len");
        Db.assertSqlState("22023", () -> Pq.sendIdemEvents(ds, q, arr("t", "t"), arr("a", "b"), arr("k1"), "1 hour",
                null, null, null));
        Db.assertSqlState("22023", () -> Pq.sendIdemEvents(ds, q, null, arr("a", "b"), arr("k1", "k2"), "1 hour",
                arr("pk"), null, null));
    }

    @Test
    void send_idem_with_partition_key_is_delivered_on_the_keys_slot() {
        String q = newQueue("q_compose");
        int n = 4;
        Pq.subscribePartitioned(ds, q, "w", n);
        Idem r = Db.with(ds, c -> Pq.sendIdem(c, q, "evt", "p", "idem-compose", "1 hour", "tenant-compose"));
        Pq.sendIdemEvents(ds, q, arr("t"), arr("p2"), arr("idem-compose-2"), "1 hour", arr("tenant-compose"), null, null);
        Pq.tick(ds, q);
        int home = Pq.expectedSlot(ds, "tenant-compose", n);
        for (int k = 0; k < n; k++) {
            List<Pq.Msg> got = Pq.drainSlot(ds, q, "w", k, n, "w1", 100);
            if (k == home) {
                assertEquals(List.of("idem-compose", "idem-compose-2"), got.stream().map(Pq.Msg::extra2).toList());
                assertEquals(r.eventId().longValue(), got.get(0).msgId());
            } else {
                assertEquals(List.of(), got, "slot " + k);
            }
        }
    }

    @Test
    void send_idem_events_dedups_repeated_key_in_one_call_to_first_occurrence() {
        String q = newQueue("q_ev_incall");
        List<Idem> r = Pq.sendIdemEvents(ds, q, arr("t", "t", "t", "t"), arr("first", "other", "second", "third"),
                arr("dup", "solo", "dup", "dup"), "1 hour", null, null, null);
        assertEquals(4, r.size());
        assertEquals(Boolean.FALSE, r.get(0).deduped());
        assertEquals(Boolean.FALSE, r.get(1).deduped());
        assertEquals(Boolean.TRUE, r.get(2).deduped());
        assertEquals(Boolean.TRUE, r.get(3).deduped());
        assertEquals(r.get(0).eventId(), r.get(2).eventId());
        assertEquals(r.get(0).eventId(), r.get(3).eventId());
        assertEquals(1, Pq.eventsWithIdemKey(ds, q, "dup"));
        assertEquals("first", event(q, r.get(0).eventId()).get("ev_data"));
    }

    @Test
    void send_idem_events_dedups_keys_live_from_an_earlier_call() {
        String q = newQueue("q_ev_earlier");
        Idem earlier = Pq.sendIdem(ds, q, "t", "single", "live", "1 hour");
        List<Idem> first = Pq.sendIdemEvents(ds, q, arr("t"), arr("batch-1"), arr("live2"), "1 hour", null, null, null);
        List<Idem> r = Pq.sendIdemEvents(ds, q, arr("t", "t", "t"), arr("a", "b", "c"), arr("live", "fresh", "live2"),
                "1 hour", null, null, null);
        assertEquals(Boolean.TRUE, r.get(0).deduped());
        assertEquals(earlier.eventId(), r.get(0).eventId(), "deduped to send_idem's id");
        assertEquals(Boolean.FALSE, r.get(1).deduped());
        assertEquals(Boolean.TRUE, r.get(2).deduped());
        assertEquals(first.get(0).eventId(), r.get(2).eventId(), "deduped to the earlier batch's id");
        assertEquals(1, Pq.eventsWithIdemKey(ds, q, "live"));
        assertEquals(1, Pq.eventsWithIdemKey(ds, q, "live2"));
    }

    @Test
    void send_idem_events_rejects_null_key() {
        String q = newQueue("q_ev_null");
        Db.assertSqlState("22023", () -> Pq.sendIdemEvents(ds, q, arr("t", "t"), arr("a", "b"), arr("k", null), "1 hour",
                null, null, null));
        assertEquals(0, idemRows(q), "nothing claimed by a rejected call");
    }

    @Test
    void send_idem_events_after_expiry_appends_a_new_event() {
        String q = newQueue("q_ev_expiry");
        List<Idem> first = Pq.sendIdemEvents(ds, q, arr("t"), arr("a"), arr("k"), "1 second", null, null, null);
        List<Idem> later = Db.inTx(ds, c -> {
            Db.exec(c, "select pg_sleep(1.2)");
            return Pq.sendIdemEvents(c, q, arr("t"), arr("b"), arr("k"), "1 second", null, null, null);
        });
        assertEquals(Boolean.FALSE, later.get(0).deduped());
        assertNotEquals(first.get(0).eventId(), later.get(0).eventId());
    }

    @Test
    void send_idem_events_expiry_is_computed_after_the_lock_wait() throws Exception {
        String q = warmQueue("q_ev_race_expiry");
        // a is closed first, so its locks go before b (which may be waiting on them) is closed
        try (Connection b = ds.getConnection(); Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(true);
            int bPid = Db.one(b, Integer.class, "select pg_backend_pid()");
            Pq.sendIdem(a, q, "evt", "from A", "held", "10 seconds", null);
            Future<List<Idem>> fb = pool.submit(() -> Pq.sendIdemEvents(b, q, arr("t", "t"), arr("free", "from B"),
                    arr("free", "held"), "10 seconds", null, null, null));
            awaitLockWait(bPid);
            Db.exec(a, "select pg_sleep(1.5)"); // B keeps waiting while A holds the key
            OffsetDateTime released = Db.one(a, OffsetDateTime.class, "select clock_timestamp()");
            a.rollback();
            List<Idem> rb = fb.get(10, TimeUnit.SECONDS);
            assertEquals(List.of(Boolean.FALSE, Boolean.FALSE), rb.stream().map(Idem::deduped).toList());
            for (String key : List.of("free", "held")) {
                OffsetDateTime expires = Db.one(ds, OffsetDateTime.class, "select i.expires_at from pgque.idem i"
                        + " join pgque.queue q on q.queue_id = i.queue_id where q.queue_name = ? and i.idem_key = ?", q, key);
                assertFalse(expires.isBefore(released.plusSeconds(10)),
                        "key " + key + ": B's window must start when B got its keys (" + released + " + 10 s): " + expires);
            }
            assertEquals("from B", event(q, rb.get(1).eventId()).get("ev_data"));
        }
    }

    @Test
    void send_idem_events_mixing_live_repeated_and_fresh_keys_writes_fresh_ones_in_input_order() {
        String q = newQueue("q_ev_mixed");
        Idem live = Pq.sendIdem(ds, q, "t", "old", "live", "1 hour");
        List<Idem> r = Pq.sendIdemEvents(ds, q, arr("t", "t", "t", "t", "t", "t"), arr("z", "live-again", "a", "z-again", "m", "live-3"),
                arr("kz", "live", "ka", "kz", "km", "live"), "1 hour", arr("p", "p", "p", "p", "p", "p"), null, null);
        assertEquals(List.of(false, true, false, true, false, true), r.stream().map(Idem::deduped).toList());
        assertEquals(List.of(1, 2, 3, 4, 5, 6), r.stream().map(Idem::ord).toList());
        assertEquals(live.eventId(), r.get(1).eventId());
        assertEquals(live.eventId(), r.get(5).eventId());
        assertEquals(r.get(0).eventId(), r.get(3).eventId());
        // Keys claimed in key order, events written in input order: ids ascend with position.
        assertTrue(r.get(0).eventId() < r.get(2).eventId() && r.get(2).eventId() < r.get(4).eventId(), "ids: " + r);
        assertEquals("z", event(q, r.get(0).eventId()).get("ev_data"));
        assertEquals("a", event(q, r.get(2).eventId()).get("ev_data"));
        assertEquals("m", event(q, r.get(4).eventId()).get("ev_data"));
        assertEquals("km", event(q, r.get(4).eventId()).get("ev_extra2"));
        assertEquals(4, idemRows(q), "warm-up-free queue: live, kz, ka, km");
        for (Idem row : r) {
            assertEquals(row.eventId(), Db.one(ds, Long.class, "select i.event_id from pgque.idem i join pgque.queue q"
                    + " on q.queue_id = i.queue_id where q.queue_name = ? and i.event_id = ?", q, row.eventId()),
                    "every answered id is the one its claim stores");
        }
    }

    @Test
    void drop_queue_waits_for_an_open_idempotent_send_and_then_removes_its_claims() throws Exception {
        String q = warmQueue("q_ev_drop");
        int queueId = Db.one(ds, Integer.class, "select queue_id from pgque.queue where queue_name = ?", q);
        try (Connection d = ds.getConnection(); Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            int dPid = Db.one(d, Integer.class, "select pg_backend_pid()");
            Pq.sendIdemEvents(a, q, arr("t"), arr("p"), arr("in-flight"), "1 hour", null, null, null);
            Future<?> drop = pool.submit(() -> {
                Db.exec(d, "select pgque.drop_queue(?, true)", q);
                return null;
            });
            awaitLockWait(dPid);
            a.commit();
            drop.get(10, TimeUnit.SECONDS);
            assertEquals(0, Db.count(ds, "select count(*) from pgque.queue where queue_name = ?", q));
            assertEquals(0, Db.count(ds, "select count(*) from pgque.idem where queue_id = ?", queueId),
                    "the dropped queue's claims are gone");
        }
    }
}

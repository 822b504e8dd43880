/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.partition;

import io.pgque.partition.Pq.Idem;
import io.pgque.partition.Pq.Msg;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ENGINE.md 6.2: the US-13 producer-idempotency acceptance contract (send_idem TTL dedup) plus
 * the Tier A consumer recipe (section 5), one test per item, each on its own queue.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ProducerIdempotencyAcceptanceIT {

    private static DataSource ds;
    private static final AtomicInteger QUEUES = new AtomicInteger();

    @BeforeAll
    static void install() {
        ds = EmbeddedPg.newDatabase("idem_acc").installEngine().superuser();
        Db.exec(ds, "create table tierA_effect (tenant text primary key, applied_at timestamptz not null default clock_timestamp())");
    }

    private static String newQueue(String prefix) {
        String q = prefix + "_" + QUEUES.incrementAndGet();
        Pq.createQueue(ds, q);
        return q;
    }

    private static long idemRows(String q, String key) {
        return Db.count(ds, "select count(*) from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id"
                + " where q.queue_name = ? and i.idem_key = ?", q, key);
    }

    // ------------------------------------------------------------------ 13.1

    @Test
    void us13_1_first_send_idem_inserts() {
        String q = newQueue("q131a");
        Idem r = Pq.sendIdemJson(ds, q, "migrate", "{\"tenant\": \"t1\", \"v\": 1}", "migrate:t1:v1", "1 hour");
        assertEquals(Boolean.FALSE, r.deduped());
        assertNotNull(r.eventId());
    }

    @Test
    void us13_1_identical_call_in_same_transaction_returns_original_id_deduped() {
        String q = newQueue("q131b");
        Db.inTx(ds, c -> {
            Idem first = Pq.sendIdemJson(c, q, "migrate", "{\"tenant\": \"t1\", \"v\": 1}", "migrate:t1:v1", "1 hour");
            Idem again = Pq.sendIdemJson(c, q, "migrate", "{\"tenant\": \"t1\", \"v\": 1}", "migrate:t1:v1", "1 hour");
            assertEquals(Boolean.FALSE, first.deduped());
            assertEquals(Boolean.TRUE, again.deduped());
            assertNotNull(again.eventId(), "a deduped send must return the original id, not NULL");
            assertEquals(first.eventId(), again.eventId());
            return null;
        });
    }

    @Test
    void us13_1_after_tick_plain_receive_yields_exactly_one_event() {
        String q = newQueue("q131c");
        Db.exec(ds, "select pgque.subscribe(?::text, ?::text)", q, "reader");
        Db.inTx(ds, c -> {
            Pq.sendIdemJson(c, q, "migrate", "{\"tenant\": \"t1\", \"v\": 1}", "migrate:t1:v1", "1 hour");
            Pq.sendIdemJson(c, q, "migrate", "{\"tenant\": \"t1\", \"v\": 1}", "migrate:t1:v1", "1 hour");
            return null;
        });
        Pq.tick(ds, q);
        List<Msg> got = Db.with(ds, c -> Pq.query(c, "select * from pgque.receive(?::text, ?::text, ?::int)", q, "reader", 100));
        assertEquals(1, got.size(), "events: " + got);
        assertEquals("migrate:t1:v1", got.get(0).extra2());
    }

    // ------------------------------------------------------------------ 13.2

    @Test
    void us13_2_versioned_keys_both_insert_with_distinct_ids() {
        String q = newQueue("q132");
        Idem v1 = Pq.sendIdemJson(ds, q, "migrate", "{\"v\": 1}", "migrate:t1:v1", "1 hour");
        Idem v2 = Pq.sendIdemJson(ds, q, "migrate", "{\"v\": 2}", "migrate:t1:v2", "1 hour");
        assertEquals(Boolean.FALSE, v1.deduped());
        assertEquals(Boolean.FALSE, v2.deduped());
        assertNotNull(v1.eventId());
        assertNotNull(v2.eventId());
        assertNotEquals(v1.eventId(), v2.eventId());
    }

    // ------------------------------------------------------------------ 13.3

    @Test
    void us13_3_after_ttl_a_fresh_send_inserts_a_new_event() {
        String q = newQueue("q133");
        Idem first = Pq.sendIdemJson(ds, q, "migrate", "{\"v\": 1}", "migrate:t1:v1", "1 second");
        assertEquals(Boolean.FALSE, first.deduped());
        Idem dup = Pq.sendIdemJson(ds, q, "migrate", "{\"v\": 1}", "migrate:t1:v1", "1 second");
        assertEquals(Boolean.TRUE, dup.deduped(), "duplicate within the TTL (new transaction)");
        assertEquals(first.eventId(), dup.eventId());
        // The spec's pg_sleep(1.5) runs in the fresh transaction that then sends: the expiry check
        // must use the wall clock, not the transaction start.
        Idem later = Db.inTx(ds, c -> {
            Db.exec(c, "select pg_sleep(1.5)");
            return Pq.sendIdemJson(c, q, "migrate", "{\"v\": 1}", "migrate:t1:v1", "1 second");
        });
        assertEquals(Boolean.FALSE, later.deduped(), "key expired 1.5 s after a 1 s TTL");
        assertNotNull(later.eventId());
        assertNotEquals(first.eventId(), later.eventId());
    }

    // ------------------------------------------------------------------ 13.4

    @Test
    void us13_4_send_idem_leaves_a_claim_row() {
        String q = newQueue("q134a");
        Pq.sendIdemJson(ds, q, "migrate", "{}", "migrate:t9:v1", "1 second");
        assertEquals(1, idemRows(q, "migrate:t9:v1"));
    }

    @Test
    void us13_4_maint_reaps_expired_claims() {
        String q = newQueue("q134b");
        Pq.sendIdemJson(ds, q, "migrate", "{}", "migrate:t9:v1", "1 second");
        Db.await(Duration.ofSeconds(10), Duration.ofMillis(100), "the claim to expire", () ->
                Boolean.TRUE.equals(Db.one(ds, Boolean.class,
                        "select bool_and(i.expires_at < clock_timestamp()) from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id"
                                + " where q.queue_name = ?", q)));
        Db.exec(ds, "select pgque.maint()");
        assertEquals(0, Db.count(ds, "select count(*) from pgque.idem i join pgque.queue q on q.queue_id = i.queue_id"
                + " where q.queue_name = ? and i.expires_at < now()", q), "maint() must reap expired claims (GC wired)");
    }

    // ------------------------------------------------------------------ 13.5 (Tier A recipe)

    @Test
    void us13_5_advisory_xact_lock_uncontended_is_acquired() {
        Boolean got = Db.inTx(ds, c -> Db.one(c, Boolean.class,
                "select pg_try_advisory_xact_lock(hashtextextended('migrate:' || ?::text, 0))", "t1"));
        assertEquals(Boolean.TRUE, got);
    }

    @Test
    void us13_5_idempotent_handler_twice_leaves_one_effect_and_needs_no_unlock() throws Exception {
        String lock = "select pg_try_advisory_xact_lock(hashtextextended('migrate:' || ?::text, 0))";
        try (Connection worker = ds.getConnection(); Connection other = ds.getConnection()) {
            worker.setAutoCommit(false);
            for (int run = 0; run < 2; run++) {
                assertEquals(Boolean.TRUE, Db.one(worker, Boolean.class, lock, "t-handler"));
                Db.exec(worker, "insert into tierA_effect (tenant) values (?) on conflict do nothing", "t-handler");
                worker.commit();
                // No unlock call: the commit released it, so another session gets the key at once.
                assertEquals(Boolean.TRUE, Db.one(other, Boolean.class, lock, "t-handler"), "lock still held after commit");
            }
        }
        assertEquals(1, Db.count(ds, "select count(*) from tierA_effect where tenant = ?", "t-handler"));
    }

    /** Section 5: exclusion is observable only across sessions; a contended key is not acquired. */
    @Test
    void tierA_xact_lock_excludes_a_second_session_until_commit() throws Exception {
        // a is closed first, so its locks go before b (which may be waiting on them) is closed
        try (Connection b = ds.getConnection(); Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            String sql = "select pg_try_advisory_xact_lock(hashtextextended('migrate:' || ?::text, 0))";
            assertTrue(Db.one(a, Boolean.class, sql, "t-contended"));
            assertFalse(Db.one(b, Boolean.class, sql, "t-contended"), "another worker is on this tenant: ack and drop");
            a.commit();
            assertTrue(Db.one(b, Boolean.class, sql, "t-contended"), "freed at commit");
        }
    }
}

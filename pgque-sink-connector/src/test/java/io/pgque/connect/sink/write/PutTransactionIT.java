/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pgque.client.PgQue;
import io.pgque.client.PgQueException;
import io.pgque.connect.sink.errors.BadRecordException;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static io.pgque.connect.sink.write.Drafts.pending;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The put's transaction against a real PostgreSQL: statements per put, and narrowing down refusals. */
class PutTransactionIT {

    private static EmbeddedPg.TestDatabase db;

    @BeforeAll
    static void database() throws SQLException {
        db = EmbeddedPg.newDatabase("sink_put_tx").installEngine();
        // Count calls of the engine's functions, to prove one statement per chunk.
        execute("alter database " + db.name() + " set track_functions = 'all'");
        for (String queue : List.of("a", "b", "poisoned", "all_or_nothing", "idem")) {
            PgQue.using(db.superuser()).queues().create(queue);
        }
        for (String queue : List.of("poisoned", "all_or_nothing")) {
            execute("alter table " + eventTable(queue) + " add constraint no_poison check (ev_data <> 'poison')");
        }
    }

    @AfterAll
    static void nothing() {
        // the shared server stops with the JVM
    }

    @Test
    void onePutIsOneStatementPerQueueChunkInOneTransaction() throws Exception {
        List<PendingEvent> events = new ArrayList<>();
        for (long offset = 0; offset < 700; offset++) {
            events.add(pending("a", "ta", 0, offset));
            if (offset < 500) {
                events.add(pending("b", "tb", 0, offset));
            }
        }
        long before = sendEventsCalls();
        try (HikariDataSource pool = pool()) {
            List<RejectedEvent> rejected = new PutTransaction(pool, new EventSender(null)).write(QueueBatches.of(events, 500), true);
            assertEquals(List.of(), rejected);
        } // closing the pool ends the session, which flushes its function statistics
        awaitCalls(before + 3);
        assertEquals(before + 3, sendEventsCalls(), "700 events to a in 2 chunks of at most 500, 500 to b in 1");
        List<String> a = payloads("a");
        assertEquals(700, a.size());
        assertEquals("{\"n\":0}", a.get(0));
        assertEquals("{\"n\":699}", a.get(699), "input order is ev_id order");
        assertEquals(500, payloads("b").size());
    }

    @Test
    void refusedEventsAreNarrowedDownAndTheOthersWrittenInOrder() throws Exception {
        List<PendingEvent> events = new ArrayList<>();
        for (long offset = 0; offset < 20; offset++) {
            String payload = offset == 3 || offset == 17 ? "poison" : "ok-" + offset;
            events.add(pending("poisoned", "t", 0, offset, payload, null));
        }
        List<RejectedEvent> rejected;
        try (HikariDataSource pool = pool()) {
            rejected = new PutTransaction(pool, new EventSender(null)).write(QueueBatches.of(events, 8), true);
        }
        assertEquals(List.of(3L, 17L), rejected.stream().map(r -> r.event().record().kafkaOffset()).toList());
        assertTrue(rejected.get(0).reason().contains("no_poison") && rejected.get(0).reason().contains("23514"),
                rejected.get(0).reason());
        List<String> expected = new ArrayList<>();
        for (long offset = 0; offset < 20; offset++) {
            if (offset != 3 && offset != 17) {
                expected.add("ok-" + offset);
            }
        }
        assertEquals(expected, payloads("poisoned"));
    }

    /**
     * A put is sent a chunk (statement) at a time, all in one transaction: a refusal in its last
     * chunk, with nobody to report it to, leaves nothing of the earlier chunks written.
     */
    @Test
    void aRefusalInALaterChunkLeavesNothingOfTheEarlierChunksWritten() throws Exception {
        List<PendingEvent> events = new ArrayList<>();
        for (long offset = 0; offset < 20; offset++) {
            events.add(pending("all_or_nothing", "t", 0, offset, offset == 18 ? "poison" : "ok-" + offset, null));
        }
        QueueBatches batches = QueueBatches.of(events, 8);
        assertEquals(3, batches.chunks().size());
        try (HikariDataSource pool = pool()) {
            BadRecordException e = assertThrows(BadRecordException.class,
                    () -> new PutTransaction(pool, new EventSender(null)).write(batches, false));
            assertTrue(e.getMessage().contains("offset=18"), e.getMessage());
        }
        assertEquals(List.of(), payloads("all_or_nothing"), "the first two chunks were rolled back with the third");
    }

    @Test
    void aDedupKeyTooLongForItsIndexIsRefusedAloneAndWithoutAReporterNothingIsWritten() throws Exception {
        byte[] noise = new byte[6000];
        new SecureRandom().nextBytes(noise);
        String hugeKey = Base64.getEncoder().encodeToString(noise); // incompressible, beyond a btree row
        List<PendingEvent> events = List.of(
                pending("idem", "t", 0, 0, "{\"i\":0}", "key-0"),
                pending("idem", "t", 0, 1, "{\"i\":1}", hugeKey),
                pending("idem", "t", 0, 2, "{\"i\":2}", "key-2"));
        EventSender sender = new EventSender(Duration.ofMinutes(5));
        try (HikariDataSource pool = pool()) {
            BadRecordException e = assertThrows(BadRecordException.class,
                    () -> new PutTransaction(pool, sender).write(QueueBatches.of(events, 500), false));
            assertTrue(e.getMessage().contains("topic=t, partition=0, offset=1"), e.getMessage());
            assertTrue(e.getMessage().contains("54000"), e.getMessage());
            assertEquals(List.of(), payloads("idem"), "without a reporter the whole put is rolled back");

            List<RejectedEvent> rejected = new PutTransaction(pool, sender).write(QueueBatches.of(events, 500), true);
            assertEquals(List.of(1L), rejected.stream().map(r -> r.event().record().kafkaOffset()).toList());
        }
        assertEquals(List.of("{\"i\":0}", "{\"i\":2}"), payloads("idem"));
    }

    @Test
    void aMissingQueueIsNotABadRecord() throws Exception {
        try (HikariDataSource pool = pool()) {
            PgQueException e = assertThrows(PgQueException.class, () -> new PutTransaction(pool, new EventSender(null))
                    .write(QueueBatches.of(List.of(pending("no_such_queue", "t", 0, 0)), 500), true));
            assertEquals(FailureKind.FATAL, FailureKind.of(e));
        }
    }

    private static HikariDataSource pool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl());
        config.setMaximumPoolSize(1);
        return new HikariDataSource(config);
    }

    private static String eventTable(String queue) throws SQLException {
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select queue_data_pfx from pgque.queue where queue_name = '" + queue + "'")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static List<String> payloads(String queue) throws SQLException {
        List<String> payloads = new ArrayList<>();
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select ev_data from " + eventTable(queue) + " order by ev_id")) {
            while (rs.next()) {
                payloads.add(rs.getString(1));
            }
        }
        return payloads;
    }

    private static long sendEventsCalls() throws SQLException {
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute("select pg_stat_clear_snapshot()");
            try (ResultSet rs = s.executeQuery("select coalesce(sum(calls), 0) from pg_stat_user_functions "
                    + "where schemaname = 'pgque' and funcname = 'send_events'")) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    // Statistics of a finished session reach the shared counters shortly after it ends.
    private static void awaitCalls(long atLeast) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (sendEventsCalls() < atLeast) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("send_events calls stayed at " + sendEventsCalls() + ", expected " + atLeast);
            }
            Thread.sleep(50);
        }
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.Batch;
import io.pgque.client.Consumer;
import io.pgque.client.PgQue;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Engine throughput from one connection: {@code send_batch} of 1,000 events against plain JDBC
 * batched INSERTs of the same payloads into a plain table, and reading whole batches against a
 * plain keyset SELECT of the same rows.
 */
final class EngineBenchmark {

    private static final int BATCH = 1_000;
    private static final int BATCHES = 100;
    private static final int EVENTS_PER_TICK = 5_000;
    private static final int PAGE = 1_000;
    /** Events sent one statement each: what code written for PgQue's send() does. */
    private static final int SINGLES = 2_000;

    private final BenchServer server;
    private final List<String> payloads = Payloads.json(BATCH);

    EngineBenchmark(BenchServer server) {
        this.server = server;
    }

    void run() throws Exception {
        try (Connection c = server.connect()) {
            setUp(c);
            warmUp(c);

            Timing.printHeader("Producing: " + BATCHES + " batches of " + BATCH + " events (~" + Payloads.averageBytes(payloads)
                    + " B JSON), one connection, one transaction per batch");
            double raw = Timing.seconds(() -> rawInserts(c, "bench_raw", BATCHES));
            double rawRate = BATCHES * (double) BATCH / raw;
            Timing.printRow("baseline: JDBC batched INSERT into a plain table", (long) BATCHES * BATCH, raw, 0);
            Timing.printRow("pgque.send_batch(queue, type, text[])", (long) BATCHES * BATCH,
                    Timing.seconds(() -> sendBatches(c, "bench", BATCHES, true)), rawRate);
            Timing.printRow("pgque.send_events(...) with partition keys", (long) BATCHES * BATCH,
                    Timing.seconds(() -> sendEvents(c, "bench_keyed", BATCHES)), rawRate);

            Timing.printHeader("Producing one event per statement: " + SINGLES + " events (~"
                    + Payloads.averageBytes(payloads) + " B JSON), one connection, all in one transaction");
            double rawSingles = Timing.seconds(() -> singleInserts(c, "bench_raw", false));
            Timing.printRow("baseline: INSERT of one row into a plain table", SINGLES, rawSingles, 0);
            Timing.printRow("pgque.send(queue, type, payload, key)", SINGLES,
                    Timing.seconds(() -> singleSends(c, "bench_single", false)), SINGLES / rawSingles);
            Timing.printHeader("Producing one event per statement: " + SINGLES + " events, each its own transaction "
                    + "(autocommit, a durable commit each)");
            double rawCommits = Timing.seconds(() -> singleInserts(c, "bench_raw", true));
            Timing.printRow("baseline: INSERT of one row into a plain table", SINGLES, rawCommits, 0);
            Timing.printRow("pgque.send(queue, type, payload, key)", SINGLES,
                    Timing.seconds(() -> singleSends(c, "bench_single", true)), SINGLES / rawCommits);

            Timing.printHeader("Consuming: whole batches of " + EVENTS_PER_TICK + " events");
            long rows = count(c, "select count(*) from bench_raw");
            double rawRead = Timing.seconds(() -> rawKeysetRead(c, PAGE));
            double rawReadRate = rows / rawRead;
            Timing.printRow("baseline: keyset SELECT of the plain table, pages of " + PAGE, rows, rawRead, 0);
            long[] paged = new long[1];
            double pagedSeconds = Timing.seconds(() -> paged[0] = Drains.plain(c, "bench", "reader_paged", PAGE));
            Timing.printRow("receive + read_batch pages of " + PAGE + " + ack", paged[0], pagedSeconds, rawReadRate);
            long[] whole = new long[1];
            double wholeSeconds = Timing.seconds(() -> whole[0] = drainOneQuery(c, "reader_whole"));
            Timing.printRow("next_batch + one streaming read_batch query + ack", whole[0], wholeSeconds, rawReadRate);
            long[] client = new long[1];
            double clientSeconds = Timing.seconds(() -> client[0] = drainWithClient(c, "bench", "reader_client"));
            Timing.printRow("Java client: Consumer.receive (first page, rest streamed) + ack", client[0], clientSeconds,
                    rawReadRate);

            // The keyed events were sent without ticks: one tick makes them a single batch, as
            // when the ticker stood still while producers went on.
            tick(c, "bench_keyed");
            Timing.printHeader("Consuming: one batch of " + BATCHES * BATCH + " events (the ticker stood still)");
            Timing.printRow("baseline: keyset SELECT of the plain table, pages of " + PAGE, rows, rawRead, 0);
            long[] bigPaged = new long[1];
            double bigPagedSeconds = Timing.seconds(() -> bigPaged[0] = Drains.plain(c, "bench_keyed", "big_paged", PAGE));
            Timing.printRow("receive + read_batch pages of " + PAGE + " + ack", bigPaged[0], bigPagedSeconds, rawReadRate);
            long[] bigClient = new long[1];
            double bigClientSeconds = Timing.seconds(() -> bigClient[0] = drainWithClient(c, "bench_keyed", "big_client"));
            Timing.printRow("Java client: Consumer.receive (first page, rest streamed) + ack", bigClient[0],
                    bigClientSeconds, rawReadRate);
        }
    }

    private void setUp(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("create table bench_raw (id bigserial primary key, type text, payload text, created timestamptz default now())");
            s.execute("create table warm_raw (id bigserial primary key, type text, payload text, created timestamptz default now())");
            for (String q : List.of("bench", "bench_keyed", "bench_single", "warm")) {
                // Ticks come only when this benchmark asks for them (tick(): nothing else calls the
                // ticker). No huge ticker_max_count: a forced tick draws twice that many ids.
                s.execute("select pgque.create_queue('" + q + "')");
            }
            s.execute("select pgque.subscribe('bench', 'reader_paged')");
            s.execute("select pgque.subscribe('bench', 'reader_whole')");
            s.execute("select pgque.subscribe('bench', 'reader_client')");
            s.execute("select pgque.subscribe('bench_keyed', 'big_paged')");
            s.execute("select pgque.subscribe('bench_keyed', 'big_client')");
        }
    }

    private void warmUp(Connection c) throws Exception {
        rawInserts(c, "warm_raw", 20);
        sendBatches(c, "warm", 20, false);
        singleInserts(c, "warm_raw", false);
        singleSends(c, "warm", false);
    }

    private void singleInserts(Connection c, String table, boolean commitEach) throws SQLException {
        oneStatementEach(c, "insert into " + table + " (type, payload) values (?, ?)", commitEach, (ps, i) -> {
            ps.setString(1, "FileCreated");
            ps.setString(2, payloads.get(i % payloads.size()));
        });
    }

    private void singleSends(Connection c, String queue, boolean commitEach) throws SQLException {
        oneStatementEach(c, "select pgque.send(?, ?, ?::text, ?)", commitEach, (ps, i) -> {
            ps.setString(1, queue);
            ps.setString(2, "FileCreated");
            ps.setString(3, payloads.get(i % payloads.size()));
            ps.setString(4, "tenant-" + (i % 200));
        });
    }

    /** Binds the i-th event's parameters. */
    private interface Binder {
        void bind(PreparedStatement ps, int i) throws SQLException;
    }

    /** {@link #SINGLES} executions of {@code sql}, each its own transaction or all in one. */
    private static void oneStatementEach(Connection c, String sql, boolean commitEach, Binder binder)
            throws SQLException {
        c.setAutoCommit(commitEach);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < SINGLES; i++) {
                binder.bind(ps, i);
                ps.execute();
            }
            if (!commitEach) {
                c.commit();
            }
        } finally {
            c.setAutoCommit(true);
        }
    }

    private void rawInserts(Connection c, String table, int batches) throws SQLException {
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("insert into " + table + " (type, payload) values (?, ?)")) {
            for (int b = 0; b < batches; b++) {
                for (String p : payloads) {
                    ps.setString(1, "FileCreated");
                    ps.setString(2, p);
                    ps.addBatch();
                }
                ps.executeBatch();
                c.commit();
            }
        } finally {
            c.setAutoCommit(true);
        }
    }

    private void sendBatches(Connection c, String queue, int batches, boolean tick) throws SQLException {
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("select pgque.send_batch(?, ?, ?::text[])")) {
            Array arr = c.createArrayOf("text", payloads.toArray());
            for (int b = 0; b < batches; b++) {
                ps.setString(1, queue);
                ps.setString(2, "FileCreated");
                ps.setArray(3, arr);
                ps.executeQuery().close();
                c.commit();
                if (tick && ((b + 1) * BATCH) % EVENTS_PER_TICK == 0) {
                    tick(c, queue);
                }
            }
        } finally {
            c.setAutoCommit(true);
        }
    }

    private void sendEvents(Connection c, String queue, int batches) throws SQLException {
        List<String> keys = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            keys.add("tenant-" + (i % 200));
        }
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("select pgque.send_events(?, ?::text[], ?::text[], ?::text[])")) {
            Array types = c.createArrayOf("text", java.util.Collections.nCopies(BATCH, "FileCreated").toArray());
            Array data = c.createArrayOf("text", payloads.toArray());
            Array keyArr = c.createArrayOf("text", keys.toArray());
            for (int b = 0; b < batches; b++) {
                ps.setString(1, queue);
                ps.setArray(2, types);
                ps.setArray(3, data);
                ps.setArray(4, keyArr);
                ps.executeQuery().close();
                c.commit();
            }
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Separate transactions: the tick's snapshot must see the sends committed. */
    static void tick(Connection c, String queue) throws SQLException {
        boolean auto = c.getAutoCommit();
        if (!auto) {
            c.commit();
            c.setAutoCommit(true);
        }
        try (Statement s = c.createStatement()) {
            s.execute("select pgque.force_next_tick('" + queue + "')");
            s.execute("select pgque.ticker('" + queue + "')");
        }
        c.setAutoCommit(auto);
    }

    private void rawKeysetRead(Connection c, int page) throws SQLException {
        long after = 0;
        try (PreparedStatement ps = c.prepareStatement("select id, type, payload, created from bench_raw where id > ? order by id limit ?")) {
            while (true) {
                ps.setLong(1, after);
                ps.setInt(2, page);
                int n = 0;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        after = rs.getLong(1);
                        rs.getString(3);
                        n++;
                    }
                }
                if (n < page) {
                    return;
                }
            }
        }
    }

    private long drainOneQuery(Connection c, String consumer) throws SQLException {
        long total = 0;
        try (PreparedStatement next = c.prepareStatement("select pgque.next_batch('bench', ?)");
             PreparedStatement read = c.prepareStatement("select msg_id, payload from pgque.read_batch(?, null, 2147483647)");
             PreparedStatement ack = c.prepareStatement("select pgque.ack(?)")) {
            read.setFetchSize(PAGE);
            while (true) {
                next.setString(1, consumer);
                long batch;
                try (ResultSet rs = next.executeQuery()) {
                    rs.next();
                    batch = rs.getLong(1);
                    if (rs.wasNull()) {
                        return total;
                    }
                }
                c.setAutoCommit(false);
                read.setLong(1, batch);
                try (ResultSet rs = read.executeQuery()) {
                    while (rs.next()) {
                        rs.getString(2);
                        total++;
                    }
                }
                c.commit();
                c.setAutoCommit(true);
                ack.setLong(1, batch);
                ack.executeQuery().close();
            }
        }
    }

    /** The Java client as an application would use it, in the caller's transactions. */
    private long drainWithClient(Connection c, String queue, String consumer) throws SQLException {
        Consumer client = PgQue.using(c).consumer();
        long total = 0;
        c.setAutoCommit(false);
        try {
            while (true) {
                Optional<Batch> batch = client.receive(queue, consumer, PAGE);
                if (batch.isEmpty()) {
                    c.commit();
                    return total;
                }
                total += batch.get().size();
                client.ack(batch.get());
                c.commit();
            }
        } finally {
            c.setAutoCommit(true);
        }
    }

    static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

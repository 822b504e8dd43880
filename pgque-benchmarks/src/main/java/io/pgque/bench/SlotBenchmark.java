/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Read amplification of ordered slots: the same keyed stream drained by N = 1, 4 and 16 slots
 * and by one plain consumer. Each slot scans the whole tick window and keeps its hash class, so
 * buffers touched per delivered event grow with N; this measures by how much.
 */
final class SlotBenchmark {

    private static final String QUEUE = "slots";
    private static final int EVENTS = 40_000;
    private static final int KEYS = 1_000;
    private static final int SEND_BATCH = 1_000;
    private static final int EVENTS_PER_TICK = 2_000;
    private static final int PAGE = 1_000;
    private static final int[] SLOT_COUNTS = {1, 4, 16};

    private final BenchServer server;

    SlotBenchmark(BenchServer server) {
        this.server = server;
    }

    void run() throws Exception {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute("select pgque.create_queue('" + QUEUE + "')");
            s.execute("select pgque.subscribe('" + QUEUE + "', 'warmup')");
            s.execute("select pgque.subscribe('" + QUEUE + "', 'plain')");
            for (int n : SLOT_COUNTS) {
                s.execute("select pgque.subscribe_partitioned('" + QUEUE + "', 'slots" + n + "', " + n + ")");
            }
            produce(c);

            System.out.println();
            System.out.printf("### Read amplification: %d keyed events over %d keys, batches of %d, pages of %d%n%n",
                    EVENTS, KEYS, EVENTS_PER_TICK, PAGE);
            System.out.println("| consumer | events | seconds | events/s | ratio to plain | buffers/event |");
            System.out.println("|---|---|---|---|---|---|");
            long[] got = new long[1];
            // The first drain pays for bringing the event tables into shared buffers; keep that
            // out of every measured row.
            Drains.plain(c, QUEUE, "warmup", PAGE);
            long buffersBefore = buffers(c);
            double plainSeconds = Timing.seconds(() -> got[0] = Drains.plain(c, QUEUE, "plain", PAGE));
            double plainBuffers = (buffers(c) - buffersBefore) / (double) got[0];
            double plainRate = got[0] / plainSeconds;
            row("plain receive, 1 consumer", got[0], plainSeconds, plainRate, plainBuffers);
            for (int n : SLOT_COUNTS) {
                buffersBefore = buffers(c);
                double seconds = Timing.seconds(() -> got[0] = drainSlots(c, "slots" + n, n));
                double perEvent = (buffers(c) - buffersBefore) / (double) got[0];
                row("N = " + n + " slots, all drained by one worker", got[0], seconds, plainRate, perEvent);
            }
        }
    }

    private static void row(String what, long events, double seconds, double plainRate, double buffersPerEvent) {
        double rate = events / seconds;
        System.out.printf(Locale.ROOT, "| %s | %d | %.3f | %.0f | %.2f | %.2f |%n", what, events, seconds, rate,
                rate / plainRate, buffersPerEvent);
    }

    private void produce(Connection c) throws SQLException {
        List<String> payloads = Payloads.json(SEND_BATCH);
        List<String> keys = new ArrayList<>(SEND_BATCH);
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("select pgque.send_events(?, ?::text[], ?::text[], ?::text[])")) {
            Array types = c.createArrayOf("text", Collections.nCopies(SEND_BATCH, "FileCreated").toArray());
            Array data = c.createArrayOf("text", payloads.toArray());
            for (int sent = 0; sent < EVENTS; sent += SEND_BATCH) {
                keys.clear();
                for (int i = 0; i < SEND_BATCH; i++) {
                    keys.add("tenant-" + ((sent + i) * 7919 % KEYS));
                }
                ps.setString(1, QUEUE);
                ps.setArray(2, types);
                ps.setArray(3, data);
                ps.setArray(4, c.createArrayOf("text", keys.toArray()));
                ps.executeQuery().close();
                c.commit();
                if ((sent + SEND_BATCH) % EVENTS_PER_TICK == 0) {
                    EngineBenchmark.tick(c, QUEUE);
                }
            }
        } finally {
            c.setAutoCommit(true);
        }
    }

    private long drainSlots(Connection c, String consumer, int n) throws SQLException {
        long total = 0;
        String worker = "bench-worker";
        try (PreparedStatement claim = c.prepareStatement("select pgque.claim_slot(?, ?, ?, ?, '60 seconds')");
             PreparedStatement receive = c.prepareStatement("select msg_id, batch_id, payload from pgque.receive_partitioned(?, ?, ?, ?, ?, ?)");
             PreparedStatement more = c.prepareStatement("select msg_id, batch_id, payload from pgque.read_batch_partitioned(?, ?, ?, ?, ?, ?, ?)");
             PreparedStatement ack = c.prepareStatement("select pgque.ack_partitioned(?, ?, ?, ?, ?)");
             PreparedStatement behind = c.prepareStatement("select count(*) from pgque.partition_slot_status s,"
                     + " pgque.get_queue_info(?) q where s.queue_name = ? and s.consumer = ? and s.last_tick < q.last_tick_id")) {
            for (int k = 0; k < n; k++) {
                claim.setString(1, QUEUE);
                claim.setString(2, consumer);
                claim.setInt(3, k);
                claim.setString(4, worker);
                claim.executeQuery().close();
            }
            while (true) {
                behind.setString(1, QUEUE);
                behind.setString(2, QUEUE);
                behind.setString(3, consumer);
                try (ResultSet rs = behind.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        return total;
                    }
                }
                for (int k = 0; k < n; k++) {
                    int slot = k;
                    total += Drains.readWholeBatch(PAGE, after -> {
                        PreparedStatement ps = after == null ? receive : more;
                        ps.setString(1, QUEUE);
                        ps.setString(2, consumer);
                        ps.setInt(3, slot);
                        ps.setInt(4, n);
                        ps.setString(5, worker);
                        if (after == null) {
                            ps.setInt(6, PAGE);
                        } else {
                            ps.setLong(6, after);
                            ps.setInt(7, PAGE);
                        }
                        return ps.executeQuery();
                    }, new long[1]).events();
                    ack.setString(1, QUEUE);
                    ack.setString(2, consumer);
                    ack.setInt(3, k);
                    ack.setInt(4, n);
                    ack.setString(5, worker);
                    ack.executeQuery().close();
                }
            }
        }
    }

    /**
     * Shared buffers hit or read by this database so far. This connection's own counters are
     * flushed first, so a reading right after a drain includes the drain.
     */
    private static long buffers(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("select pg_stat_force_next_flush()");
            s.execute("select pg_stat_clear_snapshot()");
            try (ResultSet rs = s.executeQuery(
                    "select blks_hit + blks_read from pg_stat_database where datname = current_database()")) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}

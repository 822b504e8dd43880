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
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The cost of the pause failure policy's hot blocked key (O2): one key is blocked while a large
 * share of the stream is its events, which the engine sets aside as each batch opens. Two
 * consumers of one slot read the same windows of the same queue, one with the hot key blocked and
 * one without; the difference per batch, divided by the events set aside, is what a set-aside
 * event costs, and the blocked consumer's batches at the start and the end of the run say whether
 * that cost grows with what was set aside before (it must not: nothing set aside is read again until
 * the key resumes), by quarter of the run. Then the key is released and its set-aside events drain
 * in one batch. Run at several backlog sizes, every figure per event should stay flat. A small run
 * first warms up, unreported.
 *
 * <p>Settings (system properties): {@code pause.hot.events} (comma-separated sizes, default
 * 100000,300000), {@code pause.hot.share} (the hot key's share of the stream, default 0.5).
 */
final class PauseBenchmark {

    private static final int EVENTS_PER_TICK = 2_000;
    private static final int SEND_BATCH = 1_000;
    private static final int PAGE = 1_000;
    private static final String HOT = "tenant-hot";
    private static final String WORKER = "bench-worker";

    private final BenchServer server;
    private final long[] sizes;
    private final double share;

    PauseBenchmark(BenchServer server) {
        this.server = server;
        this.sizes = Arrays.stream(System.getProperty("pause.hot.events", "100000,300000").split(","))
                .map(String::trim).mapToLong(Long::parseLong).toArray();
        this.share = Double.parseDouble(System.getProperty("pause.hot.share", "0.5"));
    }

    /** One run's figures. */
    private record Run(long setAside, long others, int batches, Side free, Side blocked, double[] blockedBuffersByQuarter,
                       double walBytesPerSetAside, double bytesPerSetAside, double eventBytesPerEvent, long blockRows,
                       double resumeSeconds, long resumed) {
    }

    /** What one consumer's batches took: wall time (median) and shared buffers touched (mean), per batch. */
    private record Side(double medianMs, double buffers) {

        static Side of(List<Long> nanos, List<Long> buffers) {
            List<Long> sorted = new ArrayList<>(nanos);
            Collections.sort(sorted);
            return new Side(sorted.get(sorted.size() / 2) / 1e6,
                    buffers.stream().mapToLong(Long::longValue).average().orElse(0));
        }
    }

    void run() throws Exception {
        System.out.println();
        System.out.printf(Locale.ROOT, "### Pause: one hot key blocked, %.0f%% of a stream of ~%d B documents, "
                + "ticks of %d events, pages of %d%n%n", share * 100, Documents.averageBytes(1_000), EVENTS_PER_TICK,
                PAGE);
        System.out.println("| set aside | other keys' events | batches | free: ms / buffers per batch "
                + "| blocked: ms / buffers per batch | blocked: buffers per batch by quarter of the run "
                + "| extra µs per set-aside event | WAL bytes per set-aside event | disk bytes per set-aside event "
                + "(event table: per event) | block rows | resume: events/s |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        // Warms the JIT, the caches and the tables' first pages; not reported.
        runOnce(Math.min(4_000, sizes[0]));
        for (long size : sizes) {
            Run r = runOnce(size);
            double[] q = r.blockedBuffersByQuarter();
            double hotPerBatch = (double) r.setAside() / r.batches();
            System.out.printf(Locale.ROOT, "| %d | %d | %d | %.1f / %.0f | %.1f / %.0f | %.0f / %.0f / %.0f / %.0f "
                            + "| %.1f | %.0f | %.0f (%.0f) | %d | %.0f |%n",
                    r.setAside(), r.others(), r.batches(), r.free().medianMs(), r.free().buffers(),
                    r.blocked().medianMs(), r.blocked().buffers(), q[0], q[1], q[2], q[3],
                    (r.blocked().medianMs() - r.free().medianMs()) * 1e3 / hotPerBatch, r.walBytesPerSetAside(),
                    r.bytesPerSetAside(), r.eventBytesPerEvent(), r.blockRows(), r.resumed() / r.resumeSeconds());
        }
    }

    private Run runOnce(long hotEvents) throws SQLException {
        String queue = "pause_" + hotEvents;
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            // What earlier runs set aside is gone; its space goes too, so the size below is this run's.
            s.execute("vacuum full pgque.partition_set_aside");
            s.execute("select pgque.create_queue('" + queue + "')");
            for (String consumer : List.of("blocked", "free")) {
                s.execute("select pgque.subscribe_partitioned('" + queue + "', '" + consumer + "', 1)");
                s.execute("select pgque.claim_slot('" + queue + "', '" + consumer + "', 0, '" + WORKER + "', '1 hour')");
            }
            block(c, queue);
            List<Long> blockedNanos = new ArrayList<>();
            List<Long> blockedBuffers = new ArrayList<>();
            List<Long> freeNanos = new ArrayList<>();
            List<Long> freeBuffers = new ArrayList<>();
            long wal = 0;
            long setAside = 0;
            long others = 0;
            int tick = 0;
            while (setAside < hotEvents) {
                long hot = produceTick(c, queue, tick);
                // Alternate which consumer reads the window first: the second finds it in the cache.
                long freeGot = 0;
                long blockedGot = 0;
                for (int turn = 0; turn < 2; turn++) {
                    boolean blockedTurn = (turn == 0) == (tick % 2 == 0);
                    long walBefore = one(c, "select pg_current_wal_insert_lsn() - '0/0'::pg_lsn");
                    long buffersBefore = clientBuffers(c);
                    long t0 = System.nanoTime();
                    long got = batch(c, queue, blockedTurn ? "blocked" : "free");
                    long nanos = System.nanoTime() - t0;
                    long buffers = clientBuffers(c) - buffersBefore;
                    if (blockedTurn) {
                        blockedGot = got;
                        blockedNanos.add(nanos);
                        blockedBuffers.add(buffers);
                        wal += one(c, "select pg_current_wal_insert_lsn() - '0/0'::pg_lsn") - walBefore;
                    } else {
                        freeGot = got;
                        freeNanos.add(nanos);
                        freeBuffers.add(buffers);
                    }
                }
                if (freeGot != EVENTS_PER_TICK || blockedGot != EVENTS_PER_TICK - hot) {
                    throw new IllegalStateException("tick " + tick + ": free got " + freeGot + ", blocked got "
                            + blockedGot + " of " + EVENTS_PER_TICK + " with " + hot + " hot");
                }
                setAside += hot;
                others += blockedGot;
                tick++;
            }
            long counted = one(c, "select set_aside from pgque.blocked_keys('" + queue + "', 'blocked')");
            if (counted != setAside) {
                throw new IllegalStateException("the engine counts " + counted + " set aside, the run " + setAside);
            }
            long blockRows = one(c, "select count(*) from pgque.partition_block");
            double setAsideBytes = one(c, "select pg_total_relation_size('pgque.partition_set_aside')") / (double) setAside;
            double eventBytes = one(c, "select sum(pg_total_relation_size(c.oid)) from pg_inherits i join pg_class c"
                    + " on c.oid = i.inhrelid where i.inhparent = (select queue_data_pfx from pgque.queue"
                    + " where queue_name = '" + queue + "')::regclass") / (double) (setAside + others + 1);
            double[] quarters = new double[4];
            for (int part = 0; part < 4; part++) {
                quarters[part] = blockedBuffers.subList(tick * part / 4, tick * (part + 1) / 4).stream()
                        .mapToLong(Long::longValue).average().orElse(0);
            }

            // The operator gives up on the head: the set-aside events go out with the next batch.
            s.execute("select pgque.dead_letter_blocked_key('" + queue + "', 'blocked', '" + HOT + "', 'benchmark')");
            EngineBenchmark.tick(c, queue);
            long t0 = System.nanoTime();
            long resumed = batch(c, queue, "blocked");
            double resumeSeconds = (System.nanoTime() - t0) / 1e9;
            if (resumed != setAside) {
                throw new IllegalStateException("resumed " + resumed + " of " + setAside + " set aside");
            }
            s.execute("select pgque.drop_queue('" + queue + "', true)");
            return new Run(setAside, others, tick, Side.of(freeNanos, freeBuffers), Side.of(blockedNanos, blockedBuffers),
                    quarters, (double) wal / setAside, setAsideBytes, eventBytes, blockRows, resumeSeconds, resumed);
        }
    }

    /** Blocks the hot key of consumer "blocked": its first event, paused until an operator gives up on it. */
    private static void block(Connection c, String queue) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("select pgque.send('" + queue + "', 'FileCreated', '{}', '" + HOT + "')");
            EngineBenchmark.tick(c, queue);
            for (String consumer : List.of("blocked", "free")) {
                long id = one(c, "select msg_id from pgque.receive_partitioned('" + queue + "', '" + consumer
                        + "', 0, 1, '" + WORKER + "', 10)");
                if (consumer.equals("blocked")) {
                    s.execute("select pgque.pause_partitioned('" + queue + "', 'blocked', 0, 1, '" + WORKER
                            + "', row(" + id + ", null, null, null, null, null, null, null, null, null)::pgque.message,"
                            + " '1 day', 'benchmark')");
                }
                s.execute("select pgque.ack_partitioned('" + queue + "', '" + consumer + "', 0, 1, '" + WORKER + "')");
            }
        }
    }

    /** Sends one tick's events, the hot key's share spread through each thousand; returns how many are hot. */
    private long produceTick(Connection c, String queue, int tick) throws SQLException {
        long hot = 0;
        int hotPerBatch = (int) Math.round(SEND_BATCH * share);
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("select pgque.send_events(?, ?::text[], ?::text[], ?::text[])")) {
            Array types = c.createArrayOf("text", Collections.nCopies(SEND_BATCH, "FileCreated").toArray());
            for (int sent = 0; sent < EVENTS_PER_TICK; sent += SEND_BATCH) {
                List<String> keys = new ArrayList<>(SEND_BATCH);
                List<String> payloads = new ArrayList<>(SEND_BATCH);
                for (int i = 0; i < SEND_BATCH; i++) {
                    int n = tick * EVENTS_PER_TICK + sent + i;
                    // Spread the hot events through the batch, as a busy key's would be.
                    boolean isHot = (i * hotPerBatch / SEND_BATCH) != ((i + 1) * hotPerBatch / SEND_BATCH);
                    keys.add(isHot ? HOT : Documents.key(n));
                    payloads.add(Documents.json(n));
                    hot += isHot ? 1 : 0;
                }
                ps.setString(1, queue);
                ps.setArray(2, types);
                ps.setArray(3, c.createArrayOf("text", payloads.toArray()));
                ps.setArray(4, c.createArrayOf("text", keys.toArray()));
                ps.executeQuery().close();
                c.commit();
            }
        } finally {
            c.setAutoCommit(true);
        }
        EngineBenchmark.tick(c, queue);
        return hot;
    }

    /** Reads one batch of the consumer's slot whole, page by page, and acks it; returns its events. */
    private static long batch(Connection c, String queue, String consumer) throws SQLException {
        try (PreparedStatement receive = c.prepareStatement("select msg_id, batch_id, payload "
                + "from pgque.receive_partitioned(?, ?, 0, 1, ?, ?)");
             PreparedStatement more = c.prepareStatement("select msg_id, batch_id, payload "
                     + "from pgque.read_batch_partitioned(?, ?, 0, 1, ?, ?, ?)");
             PreparedStatement ack = c.prepareStatement("select pgque.ack_partitioned(?, ?, 0, 1, ?)")) {
            long events = Drains.readWholeBatch(PAGE, after -> {
                PreparedStatement ps = after == null ? receive : more;
                ps.setString(1, queue);
                ps.setString(2, consumer);
                ps.setString(3, WORKER);
                if (after == null) {
                    ps.setInt(4, PAGE);
                } else {
                    ps.setLong(4, after);
                    ps.setInt(5, PAGE);
                }
                return ps.executeQuery();
            }, new long[1]).events();
            ack.setString(1, queue);
            ack.setString(2, consumer);
            ack.setString(3, WORKER);
            ack.executeQuery().close();
            return events;
        }
    }

    /**
     * Shared buffers hit or read by client sessions so far (pg_stat_io): the batches' own work,
     * without autovacuum's, which pg_stat_database would count in whatever batch it ran beside.
     */
    private static long clientBuffers(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("select pg_stat_force_next_flush()");
            s.execute("select pg_stat_clear_snapshot()");
        }
        return one(c, "select sum(coalesce(hits, 0) + coalesce(reads, 0))::bigint from pg_stat_io"
                + " where backend_type = 'client backend'");
    }

    private static long one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Formatter;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where an event of the latency run waits, stage by stage: its sender's commit, the wait for the
 * tick that closes its batch, the tick's own transaction until its notification is heard, the
 * connector's read until the worker takes the record from {@code poll()} ({@link PolledStamp}),
 * the produce to the broker's append, and the consumer's fetch. The stamps come from one clock
 * ({@link System#nanoTime()}); the database's tick times and the broker's append times (wall clock,
 * the same machine) are brought onto it through one offset taken at the start, the broker's to
 * the millisecond.
 */
final class LatencyTrace implements AutoCloseable {

    private final int events;
    private final long[] committed;
    private final long[] eventIds;
    private final long[] sent;
    private final long[] polled;
    private final long[] appended;
    private final long[] arrived;
    private final long[] batchIds;
    private final Map<Long, Long> tickHeard = new ConcurrentHashMap<>();
    /** Wall clock minus {@link System#nanoTime()}, in ns. */
    private final long wallOffset;
    private final Connection listener;
    private final Thread watch;
    private volatile boolean closed;

    LatencyTrace(int events, Connection listener, String queue) throws SQLException {
        this.events = events;
        this.committed = new long[events];
        this.eventIds = new long[events];
        this.sent = new long[events];
        this.polled = new long[events];
        this.appended = new long[events];
        this.arrived = new long[events];
        this.batchIds = new long[events];
        Instant wall = Clock.systemUTC().instant();
        long nanos = System.nanoTime();
        this.wallOffset = wall.getEpochSecond() * 1_000_000_000L + wall.getNano() - nanos;
        this.listener = listener;
        try (Statement s = listener.createStatement()) {
            s.execute("LISTEN " + listener.unwrap(PGConnection.class).escapeIdentifier("pgque_" + queue));
        }
        this.watch = new Thread(this::watchTicks, "bench-tick-watch");
        this.watch.setDaemon(true);
        this.watch.start();
    }

    private void watchTicks() {
        try {
            PGConnection pg = listener.unwrap(PGConnection.class);
            while (!closed) {
                PGNotification[] ticks = pg.getNotifications(100);
                long now = System.nanoTime();
                if (ticks != null) {
                    for (PGNotification tick : ticks) {
                        tickHeard.putIfAbsent(Long.parseLong(tick.getParameter()), now);
                    }
                }
            }
        } catch (SQLException | RuntimeException e) {
            if (!closed) {
                System.out.println("tick watch ended: " + e.getMessage());
            }
        }
    }

    /** The producer's send of {@code ids}, events {@code firstSeq} on, returned at {@code nanos}. */
    void committed(int firstSeq, List<Long> ids, long nanos) {
        for (int i = 0; i < ids.size() && firstSeq + i < events; i++) {
            committed[firstSeq + i] = nanos;
            eventIds[firstSeq + i] = ids.get(i);
        }
    }

    void arrived(int seq, long sentNanos, long polledNanos, long appendWallMillis, long arrivedNanos, long batchId) {
        sent[seq] = sentNanos;
        polled[seq] = polledNanos;
        appended[seq] = appendWallMillis * 1_000_000L - wallOffset;
        arrived[seq] = arrivedNanos;
        batchIds[seq] = batchId;
    }

    @Override
    public void close() {
        closed = true;
        try {
            watch.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The stages of the run's events, as a table, with the queue's ticks read from {@code c}. */
    String report(Connection c, String queue) throws SQLException {
        StringBuilder text = new StringBuilder();
        Formatter out = new Formatter(text, Locale.ROOT);
        List<long[]> ticks = ticks(c, queue); // tick_id, event_seq, start (nanoTime)
        int n = 0;
        double[][] stage = new double[7][events];
        Set<Long> ticksUsed = new HashSet<>();
        int unheard = 0;
        for (int seq = 0; seq < events; seq++) {
            long[] tick = closingTick(ticks, eventIds[seq], committed[seq]);
            if (tick == null || committed[seq] == 0) {
                continue;
            }
            Long heard = tickHeard.get(tick[0]);
            if (heard == null) {
                unheard++;
                continue;
            }
            ticksUsed.add(tick[0]);
            stage[0][n] = ms(committed[seq] - sent[seq]);
            stage[1][n] = ms(tick[2] - committed[seq]);
            stage[2][n] = ms(heard - tick[2]);
            stage[3][n] = polled[seq] == 0 ? Double.NaN : ms(polled[seq] - heard);
            stage[4][n] = polled[seq] == 0 ? Double.NaN : ms(appended[seq] - polled[seq]);
            stage[5][n] = ms(arrived[seq] - appended[seq]);
            stage[6][n] = ms(arrived[seq] - sent[seq]);
            n++;
        }
        String[] names = {"send to commit (the sender's transaction)", "commit to tick start (waiting for a tick)",
                "tick start to its notification heard", "notification to the worker's poll() (wake-up, read)",
                "poll() to the broker's append (convert, produce)", "append to the consumer (fetch)", "total"};
        out.format("%n");
        out.format("Where %s's events waited (%d of %d traced; %d of unheard ticks), ms:%n", queue,
                n, events, unheard);
        out.format("| %-52s | %6s | %6s | %6s | %6s |%n", "stage", "p50", "p90", "p99", "mean");
        out.format("|%s|%s|%s|%s|%s|%n", "-".repeat(54), "-".repeat(8), "-".repeat(8), "-".repeat(8), "-".repeat(8));
        for (int s = 0; s < names.length; s++) {
            double[] v = Arrays.stream(Arrays.copyOf(stage[s], n)).filter(d -> !Double.isNaN(d)).sorted().toArray();
            if (v.length == 0) {
                continue;
            }
            out.format("| %-52s | %6.1f | %6.1f | %6.1f | %6.1f |%n", names[s], pct(v, 50),
                    pct(v, 90), pct(v, 99), Arrays.stream(v).average().orElse(0));
        }
        double[] gaps = tickGaps(ticks, ticksUsed);
        long batches = Arrays.stream(batchIds).filter(b -> b != 0).distinct().count();
        out.format("ticks: %d closed the traced events, %.1f events a tick, gap between ticks "
                        + "p50 %.1f / p90 %.1f / max %.1f ms; %d batches, %.1f events a batch%n",
                ticksUsed.size(), n / (double) Math.max(1, ticksUsed.size()), pct(gaps, 50), pct(gaps, 90),
                gaps.length == 0 ? 0 : gaps[gaps.length - 1], batches, events / (double) Math.max(1, batches));
        return text.toString();
    }

    /** The first tick at or after the event's id that began after its commit: the one whose batch holds it. */
    private static long[] closingTick(List<long[]> ticks, long eventId, long committedNanos) {
        for (long[] tick : ticks) {
            if (tick[1] >= eventId && tick[2] >= committedNanos) {
                return tick;
            }
        }
        return null;
    }

    private static double[] tickGaps(List<long[]> ticks, Set<Long> used) {
        List<Double> gaps = new ArrayList<>();
        for (int i = 1; i < ticks.size(); i++) {
            if (used.contains(ticks.get(i)[0])) {
                gaps.add(ms(ticks.get(i)[2] - ticks.get(i - 1)[2]));
            }
        }
        return gaps.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    }

    private List<long[]> ticks(Connection c, String queue) throws SQLException {
        List<long[]> ticks = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("select t.tick_id, t.tick_event_seq,"
                + " (extract(epoch from t.tick_time) * 1000000)::bigint from pgque.tick t"
                + " join pgque.queue q on q.queue_id = t.tick_queue where q.queue_name = ? order by t.tick_id")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ticks.add(new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3) * 1_000L - wallOffset});
                }
            }
        }
        return ticks;
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static double pct(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(index, sorted.length - 1))];
    }
}

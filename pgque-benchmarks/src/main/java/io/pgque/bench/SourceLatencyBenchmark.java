/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.client.PgQue;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Source latency: a steady producer into the queue and a Kafka consumer on the topic, the time
 * from each event's {@code send} to its arrival; the connector as shipped
 * ({@code config/pgque-source.json}, queue left at its defaults) and tuned, beside a
 * hand-written bridge that ticks with the same period.
 */
final class SourceLatencyBenchmark {

    /** Events a second: {@code -Dsource.latency.rate} (1,000). */
    private static final int RATE = Integer.getInteger("source.latency.rate", 1_000);
    private static final Duration RUN = Duration.ofSeconds(Long.getLong("source.latency.seconds", 20));
    /** How long the idle row watches a connector with nothing to read. */
    private static final Duration IDLE = Duration.ofSeconds(Long.getLong("source.latency.idle.seconds", 10));
    /**
     * The rows to run, in order: {@code -Dsource.latency.rows=debezium50,shipped,tick50,tick25,idle};
     * {@code tick<ms>} is the shipped file with the ticker and poll intervals at {@code <ms>},
     * {@code debezium<ms>} Debezium's outbox connector polling every {@code <ms>} ({@link DebeziumOutbox}),
     * {@code bridge100} and {@code bridge50} a hand-written loop over the plain consumer.
     */
    private static final List<String> ROWS = List.of(
            System.getProperty("source.latency.rows", "debezium50,shipped,tick50,tick25").split(","));
    /** How often the rows run, one round after the other: {@code -Dsource.latency.rounds}. */
    private static final int ROUNDS = Integer.getInteger("source.latency.rounds", 1);
    /**
     * Rounds run first and left out of every figure: {@code -Dsource.latency.warmup.rounds} (0). The
     * JIT compiles through a JVM's first rounds, which more than doubled the worker's CPU an event.
     */
    private static final int WARMUP_ROUNDS = Integer.getInteger("source.latency.warmup.rounds", 0);
    /**
     * {@code -Dsource.latency.profile=true}: where each connector row's events waited, stage by stage
     * ({@link LatencyTrace}), and the server's statements over the run.
     */
    private static final boolean PROFILE = Boolean.getBoolean("source.latency.profile");
    /**
     * {@code -Dsource.latency.statements=true}: each connector row's top statements (pg_stat_statements,
     * the clients' own statements only), without the profile's tracing; to tell which calls a run's
     * database CPU went to.
     */
    private static final boolean STATEMENTS = Boolean.getBoolean("source.latency.statements");
    private static final Path SHIPPED_CONFIG = Path.of("../config/pgque-source.json");
    /** Keys of the shipped file that name the user's database, queue and topic: the benchmark's own go there. */
    private static final Set<String> SITE_KEYS = Set.of("name", "connection.url", "connection.user",
            "connection.password", "pgque.queue", "pgque.consumer", "topic");

    /**
     * Connector settings beyond the shipped file, for both connector rows, to price one in the
     * same conditions: {@code -Dsource.latency.settings=key=value,key=value}.
     */
    private static final Map<String, String> EXTRA_SETTINGS = settings(System.getProperty("source.latency.settings", ""));

    private final BenchServer server;
    private final Map<String, String> cpuUse = new LinkedHashMap<>();
    /** µs an event of each run: JVM, connector, PostgreSQL's sessions, all of PostgreSQL; by the row's name with its round. */
    private final Map<String, double[]> cpuPerEvent = new LinkedHashMap<>();
    private final Map<String, String> threads = new LinkedHashMap<>();
    private final Map<String, String> profiles = new LinkedHashMap<>();
    private long postmaster;

    SourceLatencyBenchmark(BenchServer server) {
        this.server = server;
    }

    void run() throws Exception {
        for (String row : ROWS) {
            if (!row.matches("bridge100|shipped|bridge50|idle|tick\\d+|debezium\\d+")) {
                throw new IllegalArgumentException("source.latency.rows: unknown row " + row
                        + " (bridge100, shipped, bridge50, tick<ms>, debezium<ms>, idle)");
            }
        }
        Map<String, String> shipped = shippedConfig();
        int slots = Integer.parseInt(shipped.get("pgque.slots"));
        Duration shippedTick = Duration.ofMillis(Long.parseLong(shipped.get("pgque.ticker.interval.ms")));
        try (Connection c = server.connect(); SourceKafkaSide kafka = SourceKafkaSide.start(false)) {
            String jdbcUrl = c.getMetaData().getURL();
            postmaster = CpuUse.postmasterOf(c);
            try (Statement s = c.createStatement()) {
                // Loaded by BenchServer (it counts with or without this); the profile and the idle row read it.
                s.execute("create extension if not exists pg_stat_statements");
            }
            server.trackNestedStatements(PROFILE);
            System.out.println();
            System.out.printf("### Latency: %d ev/s as %d events a transaction of ~%d B each, for %d s, send to a "
                    + "Kafka consumer; queue defaults (ticker_max_count 500, ticker_max_lag 3 s); connector with N = %d, "
                    + "tasks.max = %d; %d round(s) of %s%n%n", RATE, SteadyLoad.PER_SEND, SteadyLoad.PAYLOAD_BYTES,
                    RUN.toSeconds(), slots, slots, ROUNDS, String.join(", ", ROWS));
            Latencies.printHeader();
            Map<String, Latencies> rows = new LinkedHashMap<>();
            Map<String, List<Latencies>> byRow = new LinkedHashMap<>();
            Latencies bridge100 = null;
            Latencies bridge50 = null;
            for (int round = 1 - WARMUP_ROUNDS; round <= ROUNDS; round++) {
                if (round == 1 && WARMUP_ROUNDS > 0) {
                    rows.clear();
                    byRow.clear();
                    cpuUse.clear();
                    cpuPerEvent.clear();
                    profiles.clear();
                }
                String suffix = round <= 0 ? "_w" + (1 - round) : ROUNDS == 1 ? "" : "_r" + round;
                String tag = round <= 0 ? " (warm-up)" : ROUNDS == 1 ? "" : " (round " + round + ")";
                for (String row : ROWS) {
                    String queue = "lat_" + row + suffix;
                    kafka.createTopics(List.of(queue));
                    switch (row) {
                        case "bridge100" -> {
                            String what = "baseline loop, ticker_round 100 ms, idle poll 100 ms";
                            bridge100 = bridgeLatency(c, kafka, queue, shippedTick, what + tag);
                            printRow(rows, byRow, what, tag, bridge100, null);
                        }
                        case "shipped" -> {
                            String what = "connector, config/pgque-source.json as shipped ("
                                    + shippedTick.toMillis() + " ms)";
                            printRow(rows, byRow, what, tag, connectorLatency(c, kafka, jdbcUrl, queue,
                                    new HashMap<>(shipped), slots, what + tag), bridge100);
                        }
                        case "bridge50" -> {
                            String what = "baseline loop, ticker_round 50 ms, idle poll 50 ms";
                            bridge50 = bridgeLatency(c, kafka, queue, Duration.ofMillis(50), what + tag);
                            printRow(rows, byRow, what, tag, bridge50, null);
                        }
                        case "idle" -> cpuUse.put("connector, shipped, idle queue for " + IDLE.toSeconds() + " s"
                                + tag, idleCost(c, kafka, jdbcUrl, queue, new HashMap<>(shipped), slots, postmaster));
                        default -> {
                            if (row.startsWith("debezium")) {
                                String ms = row.substring("debezium".length());
                                String what = "Debezium outbox (pgoutput, EventRouter), poll " + ms + " ms";
                                printRow(rows, byRow, what, tag, debeziumLatency(c, kafka, jdbcUrl, queue,
                                        Duration.ofMillis(Long.parseLong(ms)), what + tag), null);
                                continue;
                            }
                            String ms = row.substring("tick".length());
                            Map<String, String> fast = new HashMap<>(shipped);
                            fast.put("pgque.ticker.interval.ms", ms);
                            fast.put("pgque.poll.interval.ms", ms);
                            String what = "connector, shipped, ticker and poll interval " + ms + " ms";
                            printRow(rows, byRow, what, tag, connectorLatency(c, kafka, jdbcUrl, queue, fast, slots,
                                    what + tag), "50".equals(ms) ? bridge50 : null);
                        }
                    }
                }
            }
            if (ROUNDS > 1) {
                System.out.println();
                System.out.println("Median of the rounds (p50 and p99 each the median of the rounds' figures):");
                byRow.forEach((what, runs) -> System.out.println("- " + what + ": " + Latencies.medians(runs)
                        + medianCpu(what)));
            }
            System.out.println();
            System.out.println("Of that, from the broker's append to the consumer:");
            rows.forEach((what, latencies) -> System.out.println("- " + what + ": " + latencies.afterAppend()));
            System.out.println();
            System.out.println("CPU over each run (JVM: broker, worker, producer and consumer; connector: the threads of "
                    + "its tasks; PostgreSQL sessions: its client backends and WAL senders, the sends included; "
                    + "PostgreSQL all: every process of the server):");
            cpuUse.forEach((what, used) -> System.out.println("- " + what + ": " + used));
            profiles.values().forEach(System.out::print);
        }
    }

    /**
     * One steady load into {@code queue}, and beside it in {@link #cpuUse} the CPU it used per event
     * sent: the JVM's, the threads of connector {@code queue} (when one reads it), the server's.
     */
    private Latencies load(SourceKafkaSide kafka, String queue, String what, LatencyTrace trace) throws Exception {
        try (Connection own = server.connect()) {
            return load(kafka, queue, what, trace, SteadyLoad.intoQueue(own, queue));
        }
    }

    private Latencies load(SourceKafkaSide kafka, String queue, String what, LatencyTrace trace,
                           SteadyLoad.Sends sends) throws Exception {
        CpuUse before = CpuUse.now(postmaster);
        ThreadCpu threadsBefore = ThreadCpu.now();
        long started = System.nanoTime();
        Latencies latencies = SteadyLoad.measure(kafka, queue, RATE, RUN, trace, sends);
        ThreadCpu threadsAfter = ThreadCpu.now();
        CpuUse used = CpuUse.now(postmaster).since(before);
        long events = latencies.sent();
        double[] perEvent = {used.jvmMicrosPer(events),
                threadsAfter.nanosSince(threadsBefore, name -> name.contains(queue)) / 1_000.0 / events,
                used.sessionMicrosPer(events), used.pgMicrosPer(events)};
        cpuPerEvent.put(what, perEvent);
        String bySession;
        try (Connection c = server.connect()) {
            bySession = used.sessionsByApplication(c, events) + oldestSnapshot(c);
        }
        cpuUse.put(what, String.format(Locale.ROOT, "%d events, µs an event: JVM %.1f, connector %.1f, "
                        + "PostgreSQL sessions %.1f (%s), PostgreSQL all %.1f", events, perEvent[0], perEvent[1],
                perEvent[2], bySession, perEvent[3]));
        if (PROFILE) {
            threads.put(what, threadsAfter.busiestSince(threadsBefore, (System.nanoTime() - started) / 1e9, 12));
        }
        return latencies;
    }

    /** The median over the rounds of row {@code what} of its CPU an event, JVM, connector and PostgreSQL. */
    private String medianCpu(String what) {
        List<double[]> runs = new ArrayList<>();
        cpuPerEvent.forEach((run, perEvent) -> {
            if (run.replaceFirst(" \\(round \\d+\\)$", "").equals(what)) {
                runs.add(perEvent);
            }
        });
        if (runs.isEmpty()) {
            return "";
        }
        double[] median = new double[4];
        for (int i = 0; i < median.length; i++) {
            final int at = i;
            median[i] = Latencies.median(runs.stream().mapToDouble(run -> run[at]).toArray());
        }
        return String.format(Locale.ROOT, "; µs an event: JVM %.1f, connector %.1f, PostgreSQL sessions %.1f, "
                + "PostgreSQL all %.1f", median[0], median[1], median[2], median[3]);
    }

    private static void printRow(Map<String, Latencies> rows, Map<String, List<Latencies>> byRow, String what,
                                 String tag, Latencies latencies, Latencies baseline) {
        latencies.printRow(what + tag, baseline);
        rows.put(what + tag, latencies);
        byRow.computeIfAbsent(what, key -> new ArrayList<>()).add(latencies);
    }

    private static Map<String, String> settings(String list) {
        Map<String, String> settings = new HashMap<>();
        for (String pair : list.split(",")) {
            if (!pair.isBlank()) {
                String[] kv = pair.split("=", 2);
                if (kv.length != 2) {
                    throw new IllegalArgumentException("source.latency.settings: not key=value: " + pair);
                }
                settings.put(kv[0].trim(), kv[1].trim());
            }
        }
        return settings;
    }

    /** The shipped example, less the keys that name the user's site. */
    private static Map<String, String> shippedConfig() throws IOException {
        Map<String, Object> file = new ObjectMapper().readValue(SHIPPED_CONFIG.toFile(),
                new TypeReference<Map<String, Object>>() { });
        @SuppressWarnings("unchecked")
        Map<String, String> config = new HashMap<>((Map<String, String>) file.get("config"));
        config.keySet().removeAll(SITE_KEYS);
        config.keySet().removeIf(key -> key.startsWith("topic.creation."));
        return config;
    }

    /**
     * The bridge beside its own ticker thread, which runs the same round as the connector's duty
     * ({@code pgque.ticker_round}) every {@code tick}, and rests {@code tick} when no batch is ready.
     */
    private Latencies bridgeLatency(Connection c, SourceKafkaSide kafka, String queue, Duration tick, String what)
            throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        pgque.consumer().subscribe(queue, SourceBridge.CONSUMER);
        ScheduledExecutorService ticker = SourceBenchmark.daemonScheduler("bench-ticker");
        Connection tickConnection = server.connect();
        ticker.scheduleWithFixedDelay(() -> PgQue.using(tickConnection).operations().tickerRound(tick), 0,
                tick.toMillis(), TimeUnit.MILLISECONDS);
        AtomicBoolean running = new AtomicBoolean(true);
        ScheduledExecutorService loop = SourceBenchmark.daemonScheduler("bench-bridge");
        Future<?> bridgeDone;
        try (Connection own = server.connect();
             SourceBridge bridge = new SourceBridge(own, kafka.bootstrapServers(), queue)) {
            bridgeDone = loop.submit(() -> {
                while (running.get()) {
                    bridge.step(tick);
                }
                return null;
            });
            try {
                return load(kafka, queue, what, null);
            } finally {
                running.set(false);
                bridgeDone.get(30, TimeUnit.SECONDS);
            }
        } finally {
            loop.shutdownNow();
            ticker.shutdownNow();
            ticker.awaitTermination(10, TimeUnit.SECONDS);
            tickConnection.close();
            dropQueue(c, queue);
        }
    }

    /**
     * Drops a row's queue once it is measured: every tick round visits every queue of the
     * database, so queues left behind would make each later row pay for the earlier ones.
     */
    private static void dropQueue(Connection c, String queue) {
        PgQue.using(c).queues().drop(queue, true);
    }

    /** The peer: Debezium's outbox connector on table {@code queue}, polling every {@code poll}. */
    private Latencies debeziumLatency(Connection c, SourceKafkaSide kafka, String jdbcUrl, String queue, Duration poll,
                                      String what) throws Exception {
        try (DebeziumOutbox outbox = DebeziumOutbox.start(c, kafka, jdbcUrl, queue, poll);
             Connection own = server.connect()) {
            if (PROFILE) {
                resetStatements(c);
            }
            Latencies latencies = load(kafka, queue, what, null, outbox.sends(own));
            if (PROFILE) {
                profiles.put(what, "\n" + what + ":\n" + PgStatements.report(c, 8));
            }
            return latencies;
        }
    }

    private Latencies connectorLatency(Connection c, SourceKafkaSide kafka, String jdbcUrl, String queue,
                                       Map<String, String> config, int slots, String what)
            throws Exception {
        startConnector(c, kafka, jdbcUrl, queue, config, slots);
        try {
            if (!PROFILE) {
                if (!STATEMENTS) {
                    return load(kafka, queue, what, null);
                }
                resetStatements(c);
                Latencies latencies = load(kafka, queue, what, null);
                profiles.put(what, "\n" + what + ":" + PgStatements.report(c, 6));
                return latencies;
            }
            try (Connection listening = server.connect();
                 LatencyTrace trace = new LatencyTrace((int) (RUN.toMillis() * RATE / 1000), listening, queue)) {
                resetStatements(c);
                Latencies latencies = load(kafka, queue, what, trace);
                profiles.put(what, trace.report(c, queue) + "busiest threads: " + threads.get(what) + "\n"
                        + PgStatements.report(c, 12));
                return latencies;
            }
        } finally {
            kafka.removeConnector(queue, () -> SourceBenchmark.leasedSlots(c, queue) == 0);
            dropQueue(c, queue);
        }
    }

    private void startConnector(Connection c, SourceKafkaSide kafka, String jdbcUrl, String queue,
                                Map<String, String> config, int slots) throws Exception {
        PgQue.using(c).queues().create(queue);
        config.put("name", queue);
        config.put("connection.url", jdbcUrl);
        config.put("pgque.queue", queue);
        config.put("topic", queue);
        config.put("pgque.metrics.log.interval.ms", "0");
        config.putAll(EXTRA_SETTINGS);
        if (PROFILE) {
            config.put("transforms", "stamp");
            config.put("transforms.stamp.type", PolledStamp.class.getName());
        }
        kafka.runConnector(queue, config, slots);
        // Every slot claimed before the clock starts, so task start-up is not counted as latency.
        SourceBenchmark.awaitCondition("all " + slots + " slots of " + queue + " leased",
                () -> SourceBenchmark.leasedSlots(c, queue) == slots);
    }

    /**
     * What the connector costs while its queue is idle: ticks, statements and CPU over {@link #IDLE}
     * with nothing sent, once its slots are leased and its first ticks are behind it.
     */
    private String idleCost(Connection c, SourceKafkaSide kafka, String jdbcUrl, String queue,
                            Map<String, String> config, int slots, long postmaster) throws Exception {
        startConnector(c, kafka, jdbcUrl, queue, config, slots);
        try {
            Thread.sleep(2_000); // the idle run measures a connector settled after its start (not a wait for a condition)
            long ticksBefore = ticks(c, queue);
            long callsBefore = statementCalls(c);
            CpuUse before = CpuUse.now(postmaster);
            ThreadCpu threadsBefore = ThreadCpu.now();
            Thread.sleep(IDLE.toMillis()); // the span measured
            CpuUse used = CpuUse.now(postmaster).since(before);
            double seconds = IDLE.toMillis() / 1000.0;
            return String.format(Locale.ROOT, "%d ticks, %.0f statements a second, CPU ms a second: JVM %.1f, "
                            + "connector %.1f, PostgreSQL sessions %.1f, PostgreSQL all %.1f", ticks(c, queue) - ticksBefore,
                    (statementCalls(c) - callsBefore) / seconds, used.jvmNanos() / 1e6 / seconds,
                    ThreadCpu.now().nanosSince(threadsBefore, name -> name.contains(queue)) / 1e6 / seconds,
                    used.sessionNanos() / 1e6 / seconds, used.pgNanos() / 1e6 / seconds);
        } finally {
            kafka.removeConnector(queue, () -> SourceBenchmark.leasedSlots(c, queue) == 0);
            dropQueue(c, queue);
        }
    }

    /**
     * The session holding the oldest snapshot now, and for how long, when one holds it over a
     * second: a snapshot held that long keeps every row version the engine's busy tables (ticks,
     * subscriptions, leases) have shed since, and each of their reads walks past them.
     */
    private static String oldestSnapshot(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select coalesce(nullif(application_name, ''), backend_type), state, "
                     + "extract(epoch from now() - xact_start) from pg_stat_activity "
                     + "where backend_xmin is not null and pid <> pg_backend_pid() "
                     + "and xact_start < now() - interval '1 second' order by xact_start limit 1")) {
            String oldest = rs.next() ? String.format(Locale.ROOT, "; oldest snapshot: %s (%s) for %.0f s",
                    rs.getString(1), rs.getString(2), rs.getDouble(3)) : "";
            return oldest + deadRows(c);
        }
    }

    /** The engine's tables with the most dead row versions now, and when autovacuum last cleaned them. */
    private static String deadRows(Connection c) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select relname, n_dead_tup, n_live_tup, "
                     + "extract(epoch from now() - greatest(last_autovacuum, last_vacuum))::int, "
                     + "pg_total_relation_size(relid) / 1024 from pg_stat_user_tables "
                     + "where schemaname = 'pgque' and n_dead_tup > 100 order by n_dead_tup desc limit 4")) {
            while (rs.next()) {
                out.append(out.length() == 0 ? "; dead rows: " : ", ").append(rs.getString(1)).append(' ')
                        .append(rs.getLong(2)).append(" (live ").append(rs.getLong(3)).append(", vacuumed ")
                        .append(rs.getObject(4) == null ? "never" : rs.getInt(4) + " s ago").append(", ")
                        .append(rs.getLong(5)).append(" kB)");
            }
        }
        return out.toString();
    }

    private static long ticks(Connection c, String queue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select count(*) from pgque.tick t join pgque.queue q"
                + " on q.queue_id = t.tick_queue where q.queue_name = ?")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Top-level statements run so far, by every session (pg_stat_statements, loaded by {@link BenchServer}). */
    private static long statementCalls(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select coalesce(sum(calls), 0) from pg_stat_statements where toplevel")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void resetStatements(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("select pg_stat_statements_reset()");
        }
    }
}

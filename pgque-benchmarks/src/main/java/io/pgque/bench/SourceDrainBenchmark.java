/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.PgQue;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draining a pre-ticked backlog of ~1 KB documents into a 3-partition topic (issue 12's
 * throughput scenario), measured against the floor: {@link PlainTableLoop}, the same documents
 * read from a plain table with a cursor and produced with a source task's producer settings.
 * Beside it the engine loop of {@link SourceBridge} and the connector in ordered mode with 1
 * slot / 1 task, 4 slots / 2 tasks (at-least-once and exactly-once) and, on request, 4 slots /
 * 4 tasks and 16, 32 or 64 slots over 4 tasks ({@code c16x4b} …), the 1/1 and 4/2 rows with one tick per batch (no catch-up window), and the plain loop
 * and the 1/1 connector writing records without headers ({@code plainh}, {@code c1x1h}), and
 * both sending the payload's bytes instead of a string ({@code plainb}, {@code c1x1b}).
 *
 * <p>Each round loads one queue (after subscribing one consumer per path, so every path drains
 * the very same events) and one plain table with the same documents; the paths then run one
 * after another, their order moved on by one each round. Runs are timed by the broker
 * ({@code LogAppendTime}, first append to last), as in {@link SourceThroughputBenchmark}.
 *
 * <p>Settings (system properties): {@code source.drain.events} (200,000),
 * {@code source.drain.rounds} (3), {@code source.drain.warmup.events} (100,000: the JIT is still compiling for ten seconds and more after a smaller one),
 * {@code source.drain.warmup.rounds} (2: after one the JIT still compiled for a second or more of a two-second run; each run prints how long it compiled),
 * {@code source.drain.partitions} (3), {@code source.drain.paths} (comma-separated ids of
 * {@link #ROUTES}, the first the baseline, default {@code plain,engine,c1x1,c4x2,c4x2eos}), {@code source.drain.pgstats} (print pg_stat_statements per run),
 * {@code source.drain.jfr} (a directory: a JFR recording of every measured run), {@code source.drain.producer}
 * (producer settings for the plain loop and the connectors alike, e.g. {@code batch.size=262144}),
 * {@code source.drain.connector} (connector settings for every connector path, e.g. {@code pgque.batch.max.events=2000}).
 */
final class SourceDrainBenchmark {

    private static final int EVENTS = Integer.getInteger("source.drain.events", 200_000);
    private static final int WARMUP_EVENTS = Integer.getInteger("source.drain.warmup.events", 100_000);
    private static final int WARMUP_ROUNDS = Integer.getInteger("source.drain.warmup.rounds", 2);
    /** The JIT's compiler threads, whose work in a run takes cores from what it measures. */
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
    private static final int ROUNDS = Integer.getInteger("source.drain.rounds", 3);
    private static final int PARTITIONS = Integer.getInteger("source.drain.partitions", 3);
    /** How many of the busiest threads a run names ({@code source.drain.threads}). */
    private static final int BUSIEST_THREADS = Integer.getInteger("source.drain.threads", 4);
    private static final boolean PG_STATS = Boolean.getBoolean("source.drain.pgstats");
    private static final String JFR_DIR = System.getProperty("source.drain.jfr", "");
    private static final long JFR_PERIOD_MS = Long.getLong("source.drain.jfr.period.ms", 10);
    /**
     * Producer settings for every path, the plain loop's producer and the connector's
     * ({@code producer.override.*}) alike: comma-separated {@code key=value}, none by default.
     */
    private static final Map<String, String> PRODUCER = parseSettings(System.getProperty("source.drain.producer", ""));
    /** Connector settings for every connector path, after the route's own: comma-separated {@code key=value}. */
    private static final Map<String, String> CONNECTOR = parseSettings(System.getProperty("source.drain.connector", ""));

    private enum Kind { PLAIN, TABLE_TASK, ENGINE, CONNECTOR }

    /**
     * One way to move the backlog into Kafka. {@code settings}: connector settings beyond the
     * defaults, to price a feature in the same run (the catch-up windows, read-ahead).
     */
    private record Route(String id, String label, Kind kind, int slots, int tasks, boolean exactlyOnce,
                         Map<String, String> settings) {
        Route(String id, String label, Kind kind, int slots, int tasks, boolean exactlyOnce) {
            this(id, label, kind, slots, tasks, exactlyOnce, Map.of());
        }
    }

    private static final Map<String, String> ONE_TICK_PER_BATCH = Map.of("pgque.batch.catchup.max.events", "0");
    private static final Map<String, String> NO_READ_AHEAD = Map.of("pgque.batch.read.ahead", "false");
    private static final Map<String, String> NO_SEND_AHEAD = Map.of("pgque.batch.send.ahead", "false");
    private static final Map<String, String> WINDOW_2500 = Map.of("pgque.batch.catchup.max.events", "2500");
    private static final Map<String, String> NO_HEADERS = Map.of("pgque.headers", "");
    private static final Map<String, String> CHUNK_4000 = Map.of("pgque.batch.max.events", "4000",
            "pgque.batch.catchup.max.events", "10000");
    private static final Map<String, String> CHUNK_2000 = Map.of("pgque.batch.max.events", "2000",
            "pgque.batch.catchup.max.events", "5000");
    private static final Map<String, String> STRING_HEADERS = Map.of("header.converter",
            "org.apache.kafka.connect.storage.StringConverter");
    private static final Map<String, String> WINDOW_10000 = Map.of("pgque.batch.catchup.max.events", "10000");
    private static final Map<String, String> BYTE_VALUES = Map.of("pgque.value.format", "bytes",
            "value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");

    private static final List<Route> ROUTES = routes();

    private static List<Route> routes() {
        List<Route> all = new ArrayList<>(List.of(
                new Route("plain", "plain table: cursor (fetch 1000), KafkaProducer", Kind.PLAIN, 0, 0, false),
                new Route("plainh", "plain table, records without headers", Kind.PLAIN, 0, 0, false, NO_HEADERS),
                new Route("plainb", "plain table, payload bytes (ByteArraySerializer)", Kind.PLAIN, 0, 0, false,
                        BYTE_VALUES),
                new Route("ctable", "Connect task reading the plain table (the framework's ceiling)", Kind.TABLE_TASK,
                        1, 1, false),
                new Route("ctableh", "Connect task reading the plain table, records without headers", Kind.TABLE_TASK,
                        1, 1, false, NO_HEADERS),
                new Route("engine", "engine loop: receive batch, send, flush, ack", Kind.ENGINE, 0, 0, false),
                connector("", 1, 1, false, "at_least_once", Map.of()),
                connector("h", 1, 1, false, "pgque.headers empty", NO_HEADERS),
                connector("", 4, 2, false, "at_least_once", Map.of()),
                connector("", 4, 2, true, "", Map.of()),
                connector("", 4, 4, false, "at_least_once", Map.of()),
                connector("k", 4, 4, false, "chunks of 4000", CHUNK_4000),
                connector("n", 4, 2, true, "no read-ahead", NO_READ_AHEAD),
                connector("w", 4, 2, true, "catch-up window 2500", WINDOW_2500),
                connector("b", 4, 2, true, "payload bytes, ByteArrayConverter", BYTE_VALUES),
                // Wide N (issue 43): how the read cost grows with the slots and the tasks that read them.
                connector("b", 16, 4, false, "payload bytes, ByteArrayConverter", BYTE_VALUES),
                connector("b", 32, 4, false, "payload bytes, ByteArrayConverter", BYTE_VALUES),
                connector("b", 64, 4, false, "payload bytes, ByteArrayConverter", BYTE_VALUES)));
        // The variants priced at one slot and at four slots on two tasks alike.
        Map<String, Map.Entry<String, Map<String, String>>> variants = new LinkedHashMap<>();
        variants.put("k", Map.entry("chunks of 4000", CHUNK_4000));
        variants.put("k2", Map.entry("chunks of 2000", CHUNK_2000));
        variants.put("w10k", Map.entry("catch-up window 10000", WINDOW_10000));
        variants.put("t", Map.entry("one tick per batch", ONE_TICK_PER_BATCH));
        variants.put("n", Map.entry("no read-ahead", NO_READ_AHEAD));
        variants.put("o", Map.entry("no send-ahead", NO_SEND_AHEAD));
        variants.put("w", Map.entry("catch-up window 2500", WINDOW_2500));
        variants.put("s", Map.entry("StringConverter for headers", STRING_HEADERS));
        variants.put("b", Map.entry("payload bytes, ByteArrayConverter", BYTE_VALUES));
        variants.forEach((suffix, v) -> {
            all.add(connector(suffix, 1, 1, false, v.getKey(), v.getValue()));
            all.add(connector(suffix, 4, 2, false, v.getKey(), v.getValue()));
        });
        return List.copyOf(all);
    }

    /** A connector route: id {@code c<slots>x<tasks>[eos]<suffix>}, labelled by its layout, guarantee and {@code what}. */
    private static Route connector(String suffix, int slots, int tasks, boolean exactlyOnce, String what,
                                   Map<String, String> settings) {
        String id = "c" + slots + "x" + tasks + (exactlyOnce ? "eos" : "") + suffix;
        String label = "connector, " + slots + (slots == 1 ? " slot, " : " slots, ") + tasks
                + (tasks == 1 ? " task" : " tasks") + (exactlyOnce ? ", exactly_once" : "")
                + (what.isEmpty() ? "" : ", " + what);
        return new Route(id, label, Kind.CONNECTOR, slots, tasks, exactlyOnce, settings);
    }

    private final BenchServer server;
    private final List<Route> routes;
    /** CPU used by each measured run, by route, in round order. */
    private final Map<Route, List<CpuUse>> cpu = new LinkedHashMap<>();
    /** Shared buffers the database read per event in each measured run, by route, in round order. */
    private final Map<Route, List<Double>> buffers = new LinkedHashMap<>();
    private long postmaster = -1;

    SourceDrainBenchmark(BenchServer server) {
        this.server = server;
        String chosen = System.getProperty("source.drain.paths", "plain,engine,c1x1,c4x2,c4x2eos");
        List<String> ids = Arrays.stream(chosen.split(",")).map(String::trim).toList();
        // In the order asked for: the first is the baseline the others are compared with.
        this.routes = ids.stream().flatMap(id -> ROUTES.stream().filter(r -> r.id().equals(id))).toList();
        if (routes.isEmpty()) {
            throw new IllegalArgumentException("source.drain.paths names none of "
                    + ROUTES.stream().map(Route::id).toList() + ": " + chosen);
        }
    }

    void run() throws Exception {
        boolean exactlyOnce = routes.stream().anyMatch(Route::exactlyOnce);
        try (Connection c = server.connect(); SourceKafkaSide kafka = SourceKafkaSide.start(false);
             SourceKafkaSide eosKafka = exactlyOnce ? SourceKafkaSide.start(true) : null) {
            String jdbcUrl = c.getMetaData().getURL();
            postmaster = CpuUse.postmasterOf(c);
            if (PG_STATS) {
                try (Statement s = c.createStatement()) {
                    s.execute("create extension if not exists pg_stat_statements");
                }
            }
            System.out.printf(Locale.ROOT, "source drain: %d events of ~%d B per round, %d rounds after %d warm-up "
                    + "rounds of %d, topics of %d partitions; load average at start %s%n", EVENTS,
                    Documents.averageBytes(1_000), ROUNDS, WARMUP_ROUNDS, WARMUP_EVENTS, PARTITIONS, BacklogRounds.loadAverage());
            for (int w = 0; w < WARMUP_ROUNDS; w++) {
                round(c, kafka, eosKafka, jdbcUrl, "drain_warm" + w, WARMUP_EVENTS, w, false);
            }

            List<List<AppendSpan>> runs = new ArrayList<>();
            routes.forEach(r -> runs.add(new ArrayList<>()));
            for (int round = 0; round < ROUNDS; round++) {
                List<AppendSpan> spans = round(c, kafka, eosKafka, jdbcUrl, "drain_r" + round, EVENTS, round, true);
                for (int i = 0; i < routes.size(); i++) {
                    runs.get(i).add(spans.get(i));
                }
                System.out.printf(Locale.ROOT, "round %d done, load average %s%n", round + 1,
                        BacklogRounds.loadAverage());
            }

            Timing.printHeader("Source drain: " + EVENTS + " keyed JSON documents (~" + Documents.averageBytes(1_000)
                    + " B) over " + Documents.KEYS + " keys, pre-loaded, one tick per " + SourceLoader.EVENTS_PER_TICK
                    + " events; topic of " + PARTITIONS + " partitions; median of " + ROUNDS + " runs");
            double baseRate = AppendSpan.median(runs.get(0)).rate();
            for (int i = 0; i < routes.size(); i++) {
                AppendSpan median = AppendSpan.median(runs.get(i));
                Timing.printRow(routes.get(i).label(), median.count(), median.seconds(), i == 0 ? 0 : baseRate);
            }
            BacklogRounds.printPerRound(routes.get(0).id() + " run", routes.stream().map(Route::label).toList(), runs);
            printCpu();
        }
    }

    /** One round: load, then every route drains the same backlog; spans in route order. */
    private List<AppendSpan> round(Connection c, SourceKafkaSide kafka, SourceKafkaSide eosKafka, String jdbcUrl,
                                   String queue, int events, int rotation, boolean measured) throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        String table = "plain_" + queue;
        for (Route r : routes) {
            if (r.kind() == Kind.ENGINE) {
                pgque.consumer().subscribe(queue, r.id());
            } else if (r.kind() == Kind.CONNECTOR) {
                pgque.slotConsumer(queue, r.id(), r.slots(), "bench-setup").subscribe();
            }
        }
        for (Route r : routes) {
            (r.exactlyOnce() ? eosKafka : kafka).createTopics(List.of(queue + "_" + r.id()), PARTITIONS);
        }
        double loadSeconds = Timing.seconds(() -> {
            BacklogRounds.preload(c, queue, events);
            PlainTableLoop.load(c, table, events);
        });
        double warmSeconds = Timing.seconds(() -> {
            BacklogRounds.readEventTables(c);
            BacklogRounds.settle(c);
        });
        System.out.printf(Locale.ROOT, "%s: loaded %d events (queue and plain table) in %.1f s, read them into the "
                + "cache, vacuumed and checkpointed in %.1f s%n", queue, events, loadSeconds, warmSeconds);

        Map<Route, AppendSpan> spans = new LinkedHashMap<>();
        for (int i = 0; i < routes.size(); i++) {
            Route r = routes.get((i + rotation) % routes.size());
            String topic = queue + "_" + r.id();
            SourceKafkaSide side = r.exactlyOnce() ? eosKafka : kafka;
            if (PG_STATS && measured) {
                try (Statement s = c.createStatement()) {
                    s.execute("select pg_stat_statements_reset()");
                }
            }
            Recording recording = measured && !JFR_DIR.isEmpty() ? startRecording() : null;
            long buffersBefore = DatabaseBuffers.now(c);
            CpuUse before = CpuUse.now(postmaster);
            long compilingBefore = JIT.getTotalCompilationTime();
            ThreadCpu threadsBefore = ThreadCpu.now();
            AppendSpan span = switch (r.kind()) {
                case PLAIN -> plain(side, table, topic, events, !r.settings().equals(NO_HEADERS),
                        r.settings().equals(BYTE_VALUES));
                case TABLE_TASK -> tableTask(c, side, jdbcUrl, table, topic, events, !r.settings().equals(NO_HEADERS));
                case ENGINE -> BacklogRounds.engineLoop(server, side, queue, r.id(), topic, events);
                case CONNECTOR -> connector(c, side, jdbcUrl, queue, r, topic, events);
            };
            CpuUse used = CpuUse.now(postmaster).since(before);
            // After the span the connector is removed and its sessions gone, so their counters are in.
            double buffersPerEvent = (DatabaseBuffers.now(c) - buffersBefore) / (double) events;
            long compilingMs = JIT.getTotalCompilationTime() - compilingBefore;
            String busiest = ThreadCpu.now().busiestSince(threadsBefore, span.seconds(), BUSIEST_THREADS);
            if (measured) {
                cpu.computeIfAbsent(r, k -> new ArrayList<>()).add(used);
                buffers.computeIfAbsent(r, k -> new ArrayList<>()).add(buffersPerEvent);
            }
            if (recording != null) {
                Path file = Path.of(JFR_DIR, topic + ".jfr");
                Files.createDirectories(file.getParent());
                recording.dump(file);
                recording.close();
                System.out.println("  JFR recording of " + topic + " in " + file);
            }
            System.out.printf(Locale.ROOT, "  %-52s %8.0f events/s (%.1f s); CPU per event: JVM %.1f us, PostgreSQL %.1f us;"
                    + " JIT compiling %d ms; shared buffers per event %.2f%n", r.label(), span.rate(), span.seconds(),
                    used.jvmMicrosPer(events), used.pgMicrosPer(events), compilingMs, buffersPerEvent);
            System.out.println("    busiest threads (CPU from start to stop, share of the span): " + busiest);
            if (PG_STATS && measured) {
                PgStatements.print(c, 12);
                PgStatements.printByBuffers(c, 16);
            }
            side.deleteTopic(topic);
            spans.put(r, span);
        }
        pgque.queues().drop(queue, true);
        PlainTableLoop.drop(c, table);
        return routes.stream().map(spans::get).toList();
    }

    /**
     * CPU per event by side, median of the rounds: the JVM (broker, worker, tasks, and the
     * benchmark, which only probes end offsets while a run is timed) and PostgreSQL. A connector
     * run counts the connector's start and stop too.
     */
    private void printCpu() {
        System.out.println();
        System.out.println("| CPU per event, median of the rounds (us) | JVM | PostgreSQL | both | both, × the "
                + routes.get(0).id() + " run | shared buffers per event, by round |");
        System.out.println("|---|---|---|---|---|---|");
        double base = Double.NaN;
        for (Route r : routes) {
            List<CpuUse> runs = cpu.get(r);
            double jvm = median(runs.stream().mapToDouble(u -> u.jvmMicrosPer(EVENTS)).toArray());
            double pg = median(runs.stream().mapToDouble(u -> u.pgMicrosPer(EVENTS)).toArray());
            double both = median(runs.stream().mapToDouble(u -> u.jvmMicrosPer(EVENTS) + u.pgMicrosPer(EVENTS)).toArray());
            if (Double.isNaN(base)) {
                base = both;
            }
            String perRound = String.join(", ", buffers.get(r).stream()
                    .map(b -> String.format(Locale.ROOT, "%.2f", b)).toList());
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.2f | %s |%n", r.label(), jvm, pg, both,
                    both / base, perRound);
        }
    }

    private static Map<String, String> parseSettings(String settings) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : settings.split(",")) {
            if (!pair.isBlank()) {
                String[] kv = pair.split("=", 2);
                out.put(kv[0].trim(), kv.length > 1 ? kv[1].trim() : "");
            }
        }
        return out;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static Recording startRecording() throws Exception {
        Recording recording = new Recording(Configuration.getConfiguration("profile"));
        // The profile's 10 ms leave a few hundred samples of a drain of seconds, too few to tell
        // the task thread's parts apart; 1 ms tells them, but slows every run down (the plain
        // loop most), so it is asked for: -Dsource.drain.jfr.period.ms=1.
        recording.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(JFR_PERIOD_MS));
        recording.start();
        return recording;
    }

    private AppendSpan plain(SourceKafkaSide kafka, String table, String topic, int events, boolean headers,
                             boolean bytes) throws Exception {
        try (Connection own = server.connect()) {
            long sent = PlainTableLoop.drain(own, kafka.bootstrapServers(), table, topic, headers, bytes, PRODUCER);
            if (sent != events) {
                throw new IllegalStateException("the plain table held " + sent + " rows, not " + events);
            }
        }
        return kafka.appendSpan(topic, events);
    }

    /** The plain table through a Connect task ({@link PlainTableSourceConnector}), with the connector's converters and producer settings. */
    private static AppendSpan tableTask(Connection c, SourceKafkaSide kafka, String jdbcUrl, String table, String topic,
                                        int events, boolean headers) throws Exception {
        Map<String, String> config = SourceBenchmark.connectorConfig(jdbcUrl, topic, 1);
        config.keySet().removeIf(key -> key.startsWith("pgque."));
        config.put("connector.class", PlainTableSourceConnector.class.getName());
        config.put(PlainTableSourceTask.TABLE, table);
        config.put(PlainTableSourceTask.HEADERS, Boolean.toString(headers));
        PRODUCER.forEach((key, value) -> config.put("producer.override." + key, value));
        return BacklogRounds.drainWith(c, kafka, config, 1, events, false, PlainTableSourceTask.SESSIONS + topic);
    }

    private static AppendSpan connector(Connection c, SourceKafkaSide kafka, String jdbcUrl, String queue, Route r,
                                        String topic, int events) throws Exception {
        Map<String, String> config = BacklogRounds.connectorConfig(jdbcUrl, queue, r.id(), topic, "ordered", r.tasks());
        config.put("pgque.slots", Integer.toString(r.slots()));
        config.putAll(r.settings());
        config.putAll(CONNECTOR);
        PRODUCER.forEach((key, value) -> config.put("producer.override." + key, value));
        if (r.exactlyOnce()) {
            config.put("pgque.delivery.guarantee", "exactly_once");
            config.put("exactly.once.support", "required");
            config.put("transaction.boundary", "connector");
        }
        return BacklogRounds.drainWith(c, kafka, config, r.tasks(), events, true);
    }
}

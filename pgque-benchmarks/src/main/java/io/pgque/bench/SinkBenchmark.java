/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.connect.sink.PgQueSinkConnector;
import io.pgque.testsupport.EmbeddedConnect;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.converters.ByteArrayConverter;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.StringConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Records per second through the sink connector against two raw baselines measured on the same
 * server in the same run: batched INSERTs of the same documents into a plain table, and
 * {@code send_events} calls from one plain JDBC connection. 200,000 documents of ~1 KB over
 * 1,000 keys, pre-loaded on two topics of 3 partitions: one as {@code JsonConverter} writes a
 * Struct with {@code schemas.enable=true} (read either with JsonConverter, or as bytes with
 * {@code pgque.value.envelope=connect-json}), one as JSON text read with {@code StringConverter}.
 * The server runs with {@code fsync} and {@code synchronous_commit} on.
 *
 * <p>Every run is timed by the rows it wrote (first to last insert transaction), so the
 * connector's start-up is not counted. Each path first does one full run as warm-up; rounds
 * then interleave the rows, and each row shows its median run.
 *
 * <p>The broker and the Connect worker run in this JVM (PostgreSQL in its own process), so the
 * CPU figure is this JVM's process CPU time over the run's wall time, in cores: the worker's
 * share plus the broker serving it.
 */
final class SinkBenchmark {

    private static final int RECORDS = 200_000;
    private static final int BASELINE_BATCH = 1_000;
    // -Dsink.rounds=N and -Dsink.warmup=2,3 (rows to warm up; "" for none) shorten a run, for
    // profiling (java -cp ... io.pgque.bench.BenchMain sink).
    private static final int ROUNDS = Integer.getInteger("sink.rounds", 3);
    // -Dsink.pgstats=true prints the server's statements by total time over the measured rounds.
    private static final boolean PG_STATS = Boolean.getBoolean("sink.pgstats");
    private static final String WARM_UP = System.getProperty("sink.warmup", "0,1,2,3,8");
    // -Dsink.rows=1,2,6,7 runs only those rows (numbered from 0 in the order below); the
    // summary then gives the ratios whose rows ran.
    private static final String ROWS = System.getProperty("sink.rows", "");
    private static final int PARTITIONS = 3;
    private static final String STRUCT_TOPIC = "bench_struct";
    private static final String STRING_TOPIC = "bench_string";
    private static final String TYPE = "FileCreated";

    /** Struct: JsonConverter; string: StringConverter; envelope: the Struct topic's bytes, opened by the sink. */
    private enum Values { STRUCT, STRING, ENVELOPE }

    private record Row(String label, RunBody body) {
    }

    private final BenchServer server;

    SinkBenchmark(BenchServer server) {
        this.server = server;
    }

    void run() throws Exception {
        EmbeddedConnectCluster connect = startCluster();
        try (Connection c = server.connect()) {
            preload(connect);
            List<Row> rows = List.of(
                    new Row("baseline: batched INSERT into a plain table, " + BASELINE_BATCH + " rows per transaction",
                            name -> timedInsert(c, name)),
                    new Row("baseline: send_events, " + BASELINE_BATCH + " events per call, one JDBC connection",
                            name -> timedQueue(c, name, q -> RawWrites.sendEvents(c, q, TYPE, RECORDS, BASELINE_BATCH,
                                    Documents::json, Documents::key))),
                    new Row("sink, 1 task, Struct values (JsonConverter), at_least_once",
                            name -> timedQueue(c, name, q -> runSink(connect, c, q, Values.STRUCT, 1, Map.of()))),
                    new Row("sink, 1 task, String values (StringConverter), at_least_once",
                            name -> timedQueue(c, name, q -> runSink(connect, c, q, Values.STRING, 1, Map.of()))),
                    new Row("sink, 2 tasks, Struct values, at_least_once",
                            name -> timedQueue(c, name, q -> runSink(connect, c, q, Values.STRUCT, 2, Map.of()))),
                    new Row("sink, 1 task, Struct values, exactly_once",
                            name -> timedQueue(c, name, q -> runSink(connect, c, q, Values.STRUCT, 1,
                                    Map.of("pgque.delivery.guarantee", "exactly_once")))),
                    new Row("sink, 1 task, Struct values, at_least_once, dedup on",
                            name -> timedQueue(c, name, q -> runSink(connect, c, q, Values.STRUCT, 1,
                                    Map.of("pgque.dedup.key", "${topic}-${partition}-${offset}",
                                            "pgque.dedup.ttl.ms", "3600000")))),
                    new Row("baseline: send_idem_events, " + BASELINE_BATCH + " events per call, one JDBC connection",
                            name -> timedQueue(c, name, q -> RawWrites.sendIdemEvents(c, q, TYPE, RECORDS, BASELINE_BATCH,
                                    Documents::json, Documents::key))),
                    new Row("sink, 1 task, envelope (ByteArrayConverter, connect-json), at_least_once",
                            name -> timedQueue(c, name, q -> runSink(connect, c, q, Values.ENVELOPE, 1, Map.of()))));
            List<Integer> selected = selectedRows(rows.size());

            // A full run of each kind of path first: class loading, the first consumer group
            // join and the JIT's compiling are then charged to no figure.
            for (String row : WARM_UP.split(",")) {
                if (!row.isBlank() && selected.contains(Integer.parseInt(row.trim()))) {
                    rows.get(Integer.parseInt(row.trim())).body().run("warm_" + row.trim());
                }
            }

            if (PG_STATS) {
                execute(c, "create extension if not exists pg_stat_statements");
                execute(c, "select pg_stat_statements_reset()");
            }
            // Rounds interleave the rows, so a burst of load from elsewhere hits one run of each
            // row, not every run of one.
            List<List<Run>> runs = new ArrayList<>();
            rows.forEach(r -> runs.add(new ArrayList<>()));
            for (int round = 0; round < ROUNDS; round++) {
                for (int row : selected) {
                    Run run = rows.get(row).body().run("r" + round + "_" + row);
                    runs.get(row).add(run);
                    System.err.printf(Locale.ROOT, "round %d, %s: %.2f s%n", round, rows.get(row).label(), run.seconds());
                }
            }

            System.out.println();
            System.out.printf(Locale.ROOT, "### Sink: %,d records of ~%d B JSON (%d keys, %d partitions), fsync and "
                    + "synchronous_commit on; first to last insert transaction; median of %d runs%n%n", RECORDS,
                    Documents.averageBytes(1000), Documents.KEYS, PARTITIONS, ROUNDS);
            System.out.printf(Locale.ROOT, "| %-70s | %8s | %8s | %10s | %6s | %14s |%n",
                    "what", "records", "seconds", "records/s", "ratio", "JVM CPU, cores");
            System.out.println("|" + "-".repeat(72) + "|" + "-".repeat(10) + "|" + "-".repeat(10) + "|"
                    + "-".repeat(12) + "|" + "-".repeat(8) + "|" + "-".repeat(16) + "|");
            Run insert = median(runs, 0);
            Run sendEvents = median(runs, 1);
            for (int row : selected) {
                Run baseline = row == 0 ? null : row == 1 ? insert : sendEvents;
                print(rows.get(row).label() + (row == 1 ? " (ratio to INSERT)" : ""), median(runs, row), baseline);
            }
            System.out.println();
            System.out.println("Ratios of sink rows are to the send_events baseline. Per-round ratios (same round):");
            for (int row : selected) {
                int base = row == 1 ? 0 : 1;
                if (row == 0 || runs.get(base).isEmpty()) {
                    continue;
                }
                StringBuilder line = new StringBuilder("- " + rows.get(row).label() + ":");
                for (int round = 0; round < ROUNDS; round++) {
                    line.append(String.format(Locale.ROOT, " %.2f",
                            runs.get(base).get(round).seconds() / runs.get(row).get(round).seconds()));
                }
                System.out.println(line);
            }
            ratio("String / Struct", runs, 2, 3);
            ratio("envelope / Struct", runs, 2, 8);
            ratio("2 tasks / 1 task", runs, 2, 4);
            ratio("exactly_once / at_least_once", runs, 2, 5);
            ratio("dedup on / off", runs, 2, 6);
            ratio("send_idem_events / send_events", runs, 1, 7);
            if (PG_STATS) {
                PgStatements.print(c, 12);
            }
        } finally {
            connect.stop();
        }
    }

    private static List<Integer> selectedRows(int count) {
        List<Integer> selected = new ArrayList<>();
        for (int row = 0; row < count; row++) {
            if (ROWS.isBlank() || List.of(ROWS.split(",")).stream().map(String::trim).toList().contains(Integer.toString(row))) {
                selected.add(row);
            }
        }
        return selected;
    }

    private static Run median(List<List<Run>> runs, int row) {
        return runs.get(row).isEmpty() ? null : Run.median(runs.get(row));
    }

    /** Prints base / candidate of the medians when both rows ran (higher is faster candidate). */
    private static void ratio(String what, List<List<Run>> runs, int base, int candidate) {
        if (!runs.get(base).isEmpty() && !runs.get(candidate).isEmpty()) {
            System.out.printf(Locale.ROOT, "%s %.2f (median runs); per round:", what,
                    Run.median(runs.get(base)).seconds() / Run.median(runs.get(candidate)).seconds());
            for (int round = 0; round < ROUNDS; round++) {
                System.out.printf(Locale.ROOT, " %.2f", runs.get(base).get(round).seconds() / runs.get(candidate).get(round).seconds());
            }
            System.out.println();
        }
    }

    private interface RunBody {
        Run run(String name) throws Exception;
    }

    private interface QueueBody {
        void run(String queue) throws Exception;
    }

    private interface Work {
        void run() throws Exception;
    }

    private record Run(double seconds, double cpuCores) {
        static Run median(List<Run> runs) {
            List<Run> sorted = new ArrayList<>(runs);
            sorted.sort(Comparator.comparingDouble(Run::seconds));
            return sorted.get(sorted.size() / 2);
        }
    }

    private static void print(String what, Run run, Run baseline) {
        double rate = RECORDS / run.seconds();
        String ratio = baseline == null ? "-" : String.format(Locale.ROOT, "%.2f", baseline.seconds() / run.seconds());
        System.out.printf(Locale.ROOT, "| %-70s | %8d | %8.2f | %10.0f | %6s | %14.2f |%n",
                what, RECORDS, run.seconds(), rate, ratio, run.cpuCores());
    }

    /** The raw INSERT baseline on a fresh plain table, timed by its rows' transaction start times. */
    private Run timedInsert(Connection c, String name) throws Exception {
        String table = "plain_" + name;
        RawWrites.createPlainTable(c, table);
        double cpu = cpuCores(() -> RawWrites.insert(c, table, TYPE, RECORDS, BASELINE_BATCH, Documents::json, Documents::key));
        double seconds = span(c, "select extract(epoch from max(created) - min(created)) from " + table);
        execute(c, "drop table " + table);
        return new Run(seconds, cpu);
    }

    /**
     * Runs {@code body} on a fresh queue and times it by the events it wrote: from the first
     * insert transaction's start to the last one's (the engine stamps {@code ev_time} with the
     * transaction's start). Connect's connector start-up (config topic, rebalances, group join)
     * is left out, as the baselines have none.
     */
    private Run timedQueue(Connection c, String name, QueueBody body) throws Exception {
        String queue = "q_" + name;
        execute(c, "select pgque.create_queue('" + queue + "')");
        double cpu = cpuCores(() -> body.run(queue));
        double seconds = span(c, "select extract(epoch from max(ev_time) - min(ev_time)) from " + eventTable(c, queue));
        // 200 MB a run: dropped at once, so the disk holds one run's rows at a time.
        execute(c, "select pgque.drop_queue('" + queue + "', true)");
        return new Run(seconds, cpu);
    }

    private static double cpuCores(Work body) throws Exception {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuStart = os.getProcessCpuTime();
        long start = System.nanoTime();
        body.run();
        long wall = System.nanoTime() - start;
        return (os.getProcessCpuTime() - cpuStart) / (double) wall;
    }

    private EmbeddedConnectCluster startCluster() {
        return EmbeddedConnect.cluster("sink-bench", 1)
                .flushOffsetsEvery(Duration.ofSeconds(10))
                .broker("group.initial.rebalance.delay.ms", "0")
                .start();
    }

    private void preload(EmbeddedConnectCluster connect) {
        connect.kafka().createTopic(STRUCT_TOPIC, PARTITIONS);
        connect.kafka().createTopic(STRING_TOPIC, PARTITIONS);
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        try (KafkaProducer<byte[], byte[]> producer = connect.kafka().createProducer(props)) {
            for (int i = 0; i < RECORDS; i++) {
                byte[] key = Documents.key(i).getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(STRUCT_TOPIC, key, Documents.envelope(i).getBytes(StandardCharsets.UTF_8)));
                producer.send(new ProducerRecord<>(STRING_TOPIC, key, Documents.json(i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    /**
     * Creates a connector reading a topic from its start, waits for every record's event,
     * removes it. The connector is named after its queue, so each exactly-once run starts with no
     * stored offsets of its own.
     */
    private void runSink(EmbeddedConnectCluster connect, Connection c, String queue, Values values, int tasks,
                         Map<String, String> extra) throws Exception {
        Map<String, String> config = new HashMap<>();
        config.put("connector.class", PgQueSinkConnector.class.getName());
        config.put("tasks.max", Integer.toString(tasks));
        config.put("topics", values == Values.STRING ? STRING_TOPIC : STRUCT_TOPIC);
        config.put("connection.url", server.jdbcUrl());
        config.put("pgque.queue", queue);
        config.put("pgque.event.type", TYPE);
        config.put("key.converter", StringConverter.class.getName());
        if (values == Values.STRUCT) {
            config.put("value.converter", JsonConverter.class.getName());
            config.put("value.converter.schemas.enable", "true");
        } else if (values == Values.ENVELOPE) {
            config.put("value.converter", ByteArrayConverter.class.getName());
            config.put("pgque.value.envelope", "connect-json");
        } else {
            config.put("value.converter", StringConverter.class.getName());
        }
        config.put("pgque.payload.format", "json");
        config.putAll(extra);
        connect.configureConnector(queue, config);
        String table = eventTable(c, queue);
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (count(c, table, RECORDS) < RECORDS) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the sink did not write " + RECORDS + " events to " + queue + " within 10 minutes");
            }
            // How often completion is checked; the run is timed by its rows, not by this loop.
            Thread.sleep(50);
        }
        connect.deleteConnector(queue);
    }

    // The id sequence first: it never trails the committed rows, so while it is below the target
    // the (costlier) exact count cannot have reached it either.
    private static long count(Connection c, String table, long expected) throws SQLException {
        try (Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("select last_value from " + table + "_id_seq")) {
                rs.next();
                if (rs.getLong(1) < expected) {
                    return rs.getLong(1);
                }
            }
            try (ResultSet rs = s.executeQuery("select count(*) from " + table)) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static double span(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getDouble(1);
        }
    }

    private static String eventTable(Connection c, String queue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select queue_data_pfx from pgque.queue where queue_name = ?")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.connect.sink.PgQueSinkConnector;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.storage.StringConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Records per second through the sink connector (1 and 2 tasks, each in both delivery modes)
 * against the raw baseline: the same payloads sent with {@code send_events} in batches of 500
 * from one plain JDBC connection, on the same server in the same run. The exactly-once rows
 * price what that mode adds to each put: the offsets statement and its row locks, in the same
 * transaction as the events. Every run, baseline and sink, is timed by the events it wrote
 * (first to last insert transaction), so the connector's start-up is not counted; the topic is
 * filled beforehand.
 *
 * <p>The broker and the Connect worker run in this JVM (PostgreSQL in its own process), so the
 * CPU figure is this JVM's process CPU time over the run's wall time, in cores: the worker's
 * share plus the broker serving it.
 */
final class SinkBenchmark {

    private static final int RECORDS = 50_000;
    private static final int KEYS = 200;
    private static final int BASELINE_BATCH = 500;
    private static final int ROUNDS = 3;
    private static final int PARTITIONS = 2;
    private static final String TOPIC = "bench_in";

    private final BenchServer server;
    private final List<String> keys = new ArrayList<>(RECORDS);
    private final List<String> payloads = new ArrayList<>(RECORDS);

    SinkBenchmark(BenchServer server) {
        this.server = server;
        for (int i = 0; i < RECORDS; i++) {
            keys.add("tenant-" + (i % KEYS));
            payloads.add(kilobyteJson(i));
        }
    }

    void run() throws Exception {
        EmbeddedConnectCluster connect = startCluster();
        try (Connection c = server.connect()) {
            preload(connect);
            // A full run of each path first: class loading, the first consumer group join and
            // the JIT's compiling (a path keeps getting faster over its first tens of thousands
            // of records) are then charged to no figure.
            baseline(c, queue(c, "warm_baseline"));
            runSink(connect, c, queue(c, "warm_up"), 1, false, RECORDS);
            runSink(connect, c, queue(c, "warm_up_eos"), 1, true, RECORDS);

            // Rounds interleave the rows, so a burst of load from elsewhere hits one run of each
            // row, not every run of one; each row shows its median run. Within a round each
            // exactly-once row comes right after its at-least-once twin.
            List<List<Run>> runs = new ArrayList<>();
            for (int row = 0; row < 5; row++) {
                runs.add(new ArrayList<>());
            }
            for (int round = 0; round < ROUNDS; round++) {
                runs.get(0).add(measure(c, "raw_baseline", round, q -> baseline(c, q)));
                runs.get(1).add(measure(c, "sink_1_task", round, q -> runSink(connect, c, q, 1, false, RECORDS)));
                runs.get(2).add(measure(c, "sink_1_task_eos", round, q -> runSink(connect, c, q, 1, true, RECORDS)));
                runs.get(3).add(measure(c, "sink_2_tasks", round, q -> runSink(connect, c, q, 2, false, RECORDS)));
                runs.get(4).add(measure(c, "sink_2_tasks_eos", round, q -> runSink(connect, c, q, 2, true, RECORDS)));
            }

            System.out.println();
            System.out.printf(Locale.ROOT, "### Sink: %,d records of ~%d B JSON (%d keys, %d partitions), "
                    + "first to last insert transaction; median of %d runs%n%n", RECORDS, averageBytes(),
                    KEYS, PARTITIONS, ROUNDS);
            System.out.printf(Locale.ROOT, "| %-62s | %8s | %8s | %10s | %6s | %14s |%n",
                    "what", "records", "seconds", "records/s", "ratio", "JVM CPU, cores");
            System.out.println("|" + "-".repeat(64) + "|" + "-".repeat(10) + "|" + "-".repeat(10) + "|"
                    + "-".repeat(12) + "|" + "-".repeat(8) + "|" + "-".repeat(16) + "|");
            Run baseline = Run.median(runs.get(0));
            row("baseline: send_events, batches of " + BASELINE_BATCH + ", one JDBC connection", baseline, baseline);
            row("sink connector, 1 task, at_least_once", Run.median(runs.get(1)), baseline);
            row("sink connector, 1 task, exactly_once", Run.median(runs.get(2)), baseline);
            row("sink connector, 2 tasks, at_least_once", Run.median(runs.get(3)), baseline);
            row("sink connector, 2 tasks, exactly_once", Run.median(runs.get(4)), baseline);
        } finally {
            connect.stop();
        }
    }

    private String queue(Connection c, String name) throws SQLException {
        execute(c, "select pgque.create_queue('" + name + "')");
        return name;
    }

    /**
     * Runs {@code body} on a fresh queue and times it by the events it wrote: from the first
     * insert transaction's start to the last one's (the engine stamps {@code ev_time} with the
     * transaction's start). Connect's connector start-up (config topic, rebalances, group join)
     * is left out, as the baseline has none: it took about half a second per run and varied
     * with what the worker had done just before.
     */
    private Run measure(Connection c, String row, int round, QueueBody body) throws Exception {
        String queue = queue(c, row + "_r" + round);
        Run whole = measure(() -> body.run(queue));
        try (PreparedStatement ps = c.prepareStatement("select extract(epoch from max(ev_time) - min(ev_time)) from "
                + eventTable(c, queue))) {
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Run(rs.getDouble(1), whole.cpuCores());
            }
        }
    }

    private record Run(double seconds, double cpuCores) {
        static Run median(List<Run> runs) {
            List<Run> sorted = new ArrayList<>(runs);
            sorted.sort(java.util.Comparator.comparingDouble(Run::seconds));
            return sorted.get(sorted.size() / 2);
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    private interface QueueBody {
        void run(String queue) throws Exception;
    }

    private static Run measure(Body body) throws Exception {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuStart = os.getProcessCpuTime();
        long start = System.nanoTime();
        body.run();
        long wall = System.nanoTime() - start;
        long cpu = os.getProcessCpuTime() - cpuStart;
        return new Run(wall / 1e9, cpu / (double) wall);
    }

    private static void row(String what, Run run, Run baseline) {
        double rate = RECORDS / run.seconds();
        double baseRate = RECORDS / baseline.seconds();
        System.out.printf(Locale.ROOT, "| %-62s | %8d | %8.2f | %10.0f | %6.2f | %14.2f |%n",
                what, RECORDS, run.seconds(), rate, rate / baseRate, run.cpuCores());
    }

    private EmbeddedConnectCluster startCluster() {
        Map<String, String> worker = new HashMap<>();
        worker.put("plugin.discovery", "service_load");
        worker.put("offset.flush.interval.ms", "10000");
        Properties broker = new Properties();
        broker.put("group.initial.rebalance.delay.ms", "0");
        EmbeddedConnectCluster connect = new EmbeddedConnectCluster.Builder()
                .name("sink-bench")
                .numBrokers(1)
                .numWorkers(1)
                .brokerProps(broker)
                .workerProps(worker)
                .build();
        connect.start();
        return connect;
    }

    private void preload(EmbeddedConnectCluster connect) {
        connect.kafka().createTopic(TOPIC, PARTITIONS);
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        try (KafkaProducer<byte[], byte[]> producer = connect.kafka().createProducer(props)) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(TOPIC, keys.get(i).getBytes(StandardCharsets.UTF_8),
                        payloads.get(i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    /**
     * Creates a connector reading the topic from its start, waits for {@code expected} events,
     * removes it. The connector is named after its queue, so each exactly-once run starts with no
     * stored offsets of its own.
     */
    private void runSink(EmbeddedConnectCluster connect, Connection c, String queue, int tasks, boolean exactlyOnce,
                         int expected) throws Exception {
        Map<String, String> config = new HashMap<>();
        config.put("connector.class", PgQueSinkConnector.class.getName());
        config.put("tasks.max", Integer.toString(tasks));
        config.put("topics", TOPIC);
        config.put("connection.url", server.jdbcUrl());
        config.put("pgque.queue", queue);
        config.put("key.converter", StringConverter.class.getName());
        config.put("value.converter", StringConverter.class.getName());
        config.put("pgque.payload.format", "json");
        config.put("pgque.delivery.guarantee", exactlyOnce ? "exactly_once" : "at_least_once");
        connect.configureConnector(queue, config);
        String table = eventTable(c, queue);
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (count(c, table, expected) < expected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the sink did not write " + expected + " events to " + queue + " within 10 minutes");
            }
            // How often completion is checked; a coarser step would add up to a step to every run.
            Thread.sleep(20);
        }
        connect.deleteConnector(queue);
    }

    private void baseline(Connection c, String queue) throws SQLException {
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("select pgque.send_events(?, ?, ?, ?)")) {
            for (int from = 0; from < RECORDS; from += BASELINE_BATCH) {
                int to = Math.min(RECORDS, from + BASELINE_BATCH);
                Array types = c.createArrayOf("text", Collections.nCopies(to - from, TOPIC).toArray());
                Array data = c.createArrayOf("text", payloads.subList(from, to).toArray());
                Array partitionKeys = c.createArrayOf("text", keys.subList(from, to).toArray());
                ps.setString(1, queue);
                ps.setArray(2, types);
                ps.setArray(3, data);
                ps.setArray(4, partitionKeys);
                ps.executeQuery().close();
                c.commit();
            }
        } finally {
            c.setAutoCommit(true);
        }
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

    private int averageBytes() {
        return (int) payloads.stream().mapToInt(String::length).average().orElse(0);
    }

    // About 1 KB: a file event of the demo domain with a block of metadata.
    private static String kilobyteJson(int i) {
        StringBuilder tags = new StringBuilder();
        for (int t = 0; tags.length() < 920; t++) {
            if (t > 0) {
                tags.append(',');
            }
            tags.append("\"tag-").append(i % 97).append('-').append(t).append('"');
        }
        return String.format(Locale.ROOT, "{\"tenant\":\"tenant-%04d\",\"event\":\"FileCreated\",\"path\":\"/files/%06d.bin\","
                + "\"size\":%d,\"tags\":[%s]}", i % KEYS, i, 1000 + i * 37 % 100000, tags);
    }
}

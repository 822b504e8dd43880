/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.Event;
import io.pgque.client.PgQue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the backlog benchmarks ({@link SourceModesBenchmark}, {@link SourceDrainBenchmark}) share:
 * one queue per round loaded with ~1 KB documents and ticked before anyone reads, the waits on
 * a removed connector, and the per-round table of ratios.
 */
final class BacklogRounds {

    private BacklogRounds() {
    }

    /** {@link Documents} 0..events-1 keyed by tenant, one tick per {@link SourceLoader#EVENTS_PER_TICK}. */
    static void preload(Connection c, String queue, int events) throws SQLException {
        // Ticks come only from here while loading (no connector runs yet). No huge
        // ticker_max_count: since engine 0.4.0 a forced tick draws twice that many event ids.
        List<Event> batch = new ArrayList<>(SourceLoader.EVENTS_PER_TICK);
        for (int i = 0; i < events; i++) {
            batch.add(Event.of("FileCreated", Documents.json(i)).withPartitionKey(Documents.key(i)));
            if (batch.size() == SourceLoader.EVENTS_PER_TICK || i == events - 1) {
                PgQue.using(c).producer().sendBatch(queue, batch);
                batch.clear();
                EngineBenchmark.tick(c, queue);
            }
        }
    }

    /** Every queue's events inherit from the template, so one scan of it reads them all. */
    static void readEventTables(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("select sum(octet_length(ev_data)) from pgque.event_template");
        }
    }

    /**
     * Leaves no work of the load for a run to pay: vacuums (which autovacuum would otherwise do
     * on the fresh tables during whichever run comes first), checkpoints (the dirty pages of
     * the load and of the first read, which sets hint bits) and collects the load's garbage in
     * this JVM (the first run after a load otherwise used up to 1.5× the JVM CPU per event of the
     * same run later in the round).
     */
    static void settle(Connection c) throws SQLException {
        System.gc();
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            s.execute("vacuum analyze");
            s.execute("checkpoint");
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /** A task's pools name their sessions after the connector; none left means every task stopped. */
    static boolean tasksGone(Connection c, String sessions) {
        try (PreparedStatement ps = c.prepareStatement(
                "select count(*) from pg_stat_activity where application_name like ?")) {
            ps.setString(1, sessions);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) == 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The engine loop ({@link SourceBridge}) drains the backlog as {@code consumer} into {@code topic}. */
    static AppendSpan engineLoop(BenchServer server, SourceKafkaSide kafka, String queue, String consumer,
                                 String topic, int events) throws Exception {
        try (Connection own = server.connect();
             SourceBridge bridge = new SourceBridge(own, kafka.bootstrapServers(), queue, consumer, topic)) {
            bridge.drain(events);
        }
        return kafka.appendSpan(topic, events);
    }

    /** A connector named after its topic, reading {@code queue} as {@code consumer} in {@code mode}. */
    static Map<String, String> connectorConfig(String jdbcUrl, String queue, String consumer, String topic,
                                               String mode, int tasks) {
        Map<String, String> config = SourceBenchmark.connectorConfig(jdbcUrl, queue, tasks);
        config.put("name", topic);
        config.put("topic", topic);
        config.put("pgque.consumer", consumer);
        config.put("pgque.mode", mode);
        return config;
    }

    /**
     * Runs the connector until its topic holds the backlog, then removes it and waits until its
     * tasks are gone (and, with slots, their leases given back), so the next path runs alone.
     */
    static AppendSpan drainWith(Connection c, SourceKafkaSide kafka, Map<String, String> config, int tasks,
                                int events, boolean slots) throws Exception {
        return drainWith(c, kafka, config, tasks, events, slots, "pgque-source-" + config.get("topic") + "-%");
    }

    /** As above, for a connector whose tasks' sessions are named like {@code sessions} (a LIKE pattern). */
    static AppendSpan drainWith(Connection c, SourceKafkaSide kafka, Map<String, String> config, int tasks,
                                int events, boolean slots, String sessions) throws Exception {
        String topic = config.get("topic");
        kafka.runConnector(topic, config, tasks);
        BatchGaps gaps = new BatchGaps();
        AppendSpan span = kafka.appendSpan(topic, events, gaps);
        System.out.println("  " + gaps.summary(span));
        System.out.println("  " + SourceKafkaSide.producerStats("connector-producer-" + config.get("name") + "-"));
        if ("exactly_once".equals(config.get("pgque.delivery.guarantee"))) {
            System.out.println("  " + SourceKafkaSide.transactionSizes(topic));
        }
        kafka.removeConnector(topic, () -> tasksGone(c, sessions)
                && (!slots || SourceBenchmark.leasesReleased(c, config.get("pgque.consumer"))));
        return span;
    }

    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * Each row's ratio to the baseline's run of the same round (what load drift cannot skew),
     * then every run's rate. Row 0 is the baseline.
     */
    static void printPerRound(String baseline, List<String> labels, List<List<AppendSpan>> runs) {
        int rounds = runs.get(0).size();
        System.out.println();
        StringBuilder header = new StringBuilder("| ratio to the " + baseline + " of the same round |");
        StringBuilder rule = new StringBuilder("|---|");
        for (int round = 1; round <= rounds; round++) {
            header.append(" round ").append(round).append(" |");
            rule.append("---|");
        }
        System.out.println(header.append(" median |"));
        System.out.println(rule.append("---|"));
        List<AppendSpan> base = runs.get(0);
        for (int row = 1; row < labels.size(); row++) {
            StringBuilder line = new StringBuilder("| " + labels.get(row) + " |");
            List<Double> ratios = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                double ratio = runs.get(row).get(round).rate() / base.get(round).rate();
                ratios.add(ratio);
                line.append(String.format(Locale.ROOT, " %.2f |", ratio));
            }
            ratios.sort(Double::compare);
            System.out.println(line.append(String.format(Locale.ROOT, " %.2f |", ratios.get(ratios.size() / 2))));
        }
        System.out.println();
        StringBuilder rates = new StringBuilder("| events/s per run (seconds) |");
        StringBuilder ratesRule = new StringBuilder("|---|");
        for (int round = 1; round <= rounds; round++) {
            rates.append(" round ").append(round).append(" |");
            ratesRule.append("---|");
        }
        System.out.println(rates);
        System.out.println(ratesRule);
        for (int row = 0; row < labels.size(); row++) {
            StringBuilder line = new StringBuilder("| " + labels.get(row) + " |");
            for (AppendSpan span : runs.get(row)) {
                line.append(String.format(Locale.ROOT, " %.0f (%.1f s) |", span.rate(), span.seconds()));
            }
            System.out.println(line);
        }
    }
}

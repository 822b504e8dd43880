/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.client.Event;
import io.pgque.client.PgQue;
import io.pgque.connect.plugin.process.MonitoringTools;
import io.pgque.connect.plugin.process.ServerProcess;
import io.pgque.connect.plugin.process.WorkerProcess;
import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Jdbc;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The monitoring of deploy/prometheus end to end, with the real programs: postgres_exporter
 * (Debian's) runs the shipped queries against a real engine as a login with the reader role
 * only, a real Prometheus scrapes it and evaluates the shipped alert rules, and a source
 * connector runs in a real Connect worker. While the connector runs, its consumer's lease alert
 * stays quiet; once the connector is deleted, nothing exports anything for it any more, and the
 * database's own figures make the lease and the rotation alerts fire.
 *
 * <p>The rules are the shipped ones with every "for" shortened to 2 s and Prometheus scraping and
 * evaluating every second; the queue rotates every 2 s. Everything else (expressions,
 * thresholds, labels) is as shipped.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PrometheusAlertsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String QUEUE = "alert_events";
    private static final String CONSUMER = "alert-events-to-kafka";
    private static final String CONNECTOR = "pgque-source";
    private static final String TOPIC = "alert-events-out";
    private static final String MONITOR = "pgque_alerts_monitor";
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", Pattern.MULTILINE);

    @TempDir
    static Path dir;

    private static EmbeddedPg.TestDatabase db;
    private static PgQue pgque;
    private static ServerProcess exporter;
    private static ServerProcess prometheus;
    private static EmbeddedConnectCluster connect;

    @BeforeAll
    static void start() throws IOException {
        Path exporterProgram = MonitoringTools.postgresExporter();
        Path prometheusProgram = MonitoringTools.prometheus();
        db = EmbeddedPg.newDatabase("prometheus_alerts").installEngine();
        pgque = PgQue.using(db.superuser());
        pgque.queues().create(QUEUE);
        superuser("select pgque.set_queue_config(?, 'rotation_period', '2 seconds')", QUEUE);
        superuser("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + MONITOR + "') then"
                + " create role " + MONITOR + " login; end if; end $$");
        superuser("grant pgque_reader to " + MONITOR);

        int exporterPort = WorkerProcess.freePort();
        exporter = ServerProcess.start("postgres-exporter", dir, exporterPort, List.of(exporterProgram.toString(),
                        "--extend.query-path=" + MonitoringFiles.EXPORTER_QUERIES,
                        "--web.listen-address=127.0.0.1:" + exporterPort),
                Map.of("DATA_SOURCE_NAME", "postgresql://" + MONITOR + "@127.0.0.1:" + db.port() + "/" + db.name()
                        + "?sslmode=disable"), "/metrics");

        Files.writeString(dir.resolve("pgque-alerts.yml"), MonitoringFiles.alertRulesWithFor("2s"));
        Files.writeString(dir.resolve("prometheus.yml"), String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  evaluation_interval: 1s",
                "rule_files:",
                "  - pgque-alerts.yml",
                "scrape_configs:",
                "  - job_name: postgres",
                "    static_configs:",
                "      - targets: ['127.0.0.1:" + exporterPort + "']",
                ""));
        int prometheusPort = WorkerProcess.freePort();
        prometheus = ServerProcess.start("prometheus", dir, prometheusPort, List.of(prometheusProgram.toString(),
                "--config.file=prometheus.yml", "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + prometheusPort), Map.of(), "/-/ready");

        connect = Samples.startWorkerWithBothPlugins("pgque-prometheus-alerts");
    }

    @AfterAll
    static void stop() {
        if (connect != null) {
            connect.stop();
        }
        if (prometheus != null) {
            prometheus.close();
        }
        if (exporter != null) {
            exporter.close();
        }
    }

    @Test
    void aDeletedSourceConnectorsConsumerFiresTheLeaseAndTheRotationAlerts() throws Exception {
        connect.kafka().createTopic(TOPIC, 2);
        Map<String, String> config = Samples.connector("pgque-source.json", db.jdbcUrl());
        config.put("pgque.queue", QUEUE);
        config.put("pgque.consumer", CONSUMER);
        config.put("pgque.slots", "2");
        config.put("tasks.max", "2");
        config.put("topic", TOPIC);
        connect.configureConnector(CONNECTOR, config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(CONNECTOR, 2, "source not running");
        for (int i = 0; i < 20; i++) {
            pgque.producer().send(QUEUE, Event.of("e", "{\"seq\":" + i + "}").withPartitionKey("key-" + (i % 4)));
        }
        connect.kafka().consume(20, TIMEOUT.toMillis(), TOPIC);

        // Quiet while the connector runs: both slots held for longer than the alert's "for".
        String held = "min_over_time(pgque_slot_lease_held{consumer=\"" + CONSUMER + "\"}[5s])";
        Samples.await(TIMEOUT, () -> values(held).equals(List.of(1.0, 1.0)),
                () -> held + " = " + values(held) + "; alerts: " + alerts());
        assertEquals(List.of(), alertsFor("PgQueConsumerWithoutLeaseHolder"),
                "no lease alert while the connector's tasks hold both slots");

        connect.deleteConnector(CONNECTOR);
        connect.assertions().assertConnectorDoesNotExist(CONNECTOR, "the connector is deleted");
        // The database goes on as a scheduler would run it (the connector was the ticker): events
        // come, ticks and maintenance rotate the queue's tables while they can.
        Samples.await(TIMEOUT, () -> {
            pgque.producer().send(QUEUE, Event.of("e", "{}").withPartitionKey("after-delete"));
            superuser("select pgque.ticker(?)", QUEUE);
            superuser("select pgque.maint()");
            superuser("select pgque.maint_rotate_tables_step2()");
            return firing("PgQueConsumerWithoutLeaseHolder") && firing("PgQueRotationPinned");
        }, () -> "alerts: " + alerts() + "; exporter:\n" + exporterSeries("pgque_slot_lease_held", "pgque_queue_rotation"));

        List<JsonNode> lease = alertsFor("PgQueConsumerWithoutLeaseHolder");
        assertEquals(1, lease.size(), lease.toString());
        assertEquals(QUEUE, lease.get(0).path("labels").path("queue").asText());
        assertEquals(2.0, Double.parseDouble(lease.get(0).path("value").asText()), "both slots: " + lease);
        try (Connection c = db.superuser().getConnection()) {
            String pinnedBy = Jdbc.one(c, String.class,
                    "select rotation_pinned_by from pgque.queue_stats() where queue_name = ?", QUEUE);
            assertTrue(pinnedBy != null && pinnedBy.startsWith(CONSUMER + "#"),
                    "a slot of the deleted connector pins rotation: " + pinnedBy);
        }
    }

    /** What the dashboard and the alert rules read from the database is what the exporter makes of the shipped queries. */
    @Test
    void theExporterMakesEveryEngineMetricTheDashboardAndTheAlertsRead() {
        String queue = "alert_names";
        pgque.queues().create(queue);
        superuser("select pgque.subscribe_partitioned(?, 'names', 1)", queue);
        superuser("select pgque.subscribe(?, 'plain')", queue);
        Set<String> wanted = new TreeSet<>(MonitoringFiles.startingWith(MonitoringFiles.dashboardMetrics(), "pgque_", "pg_up"));
        wanted.addAll(MonitoringFiles.startingWith(MonitoringFiles.alertMetrics(), "pgque_", "pg_up"));
        Set<String> exported = new TreeSet<>();
        Samples.await(TIMEOUT, () -> {
            exported.clear();
            Matcher sample = SAMPLE.matcher(exporter.get("/metrics"));
            while (sample.find()) {
                exported.add(sample.group(1));
            }
            return exported.containsAll(wanted);
        }, () -> "the exporter does not make " + missing(wanted, exported) + "; its log:\n" + exporter.logText());
        assertTrue(wanted.contains("pgque_slot_lease_held") && wanted.contains("pg_up"), wanted.toString());
    }

    private static boolean firing(String alert) {
        return alertsFor(alert).stream().anyMatch(a -> "firing".equals(a.path("state").asText()));
    }

    /** The alerts named {@code alert} (pending or firing) about this test's queue. */
    private static List<JsonNode> alertsFor(String alert) {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode a : alerts().path("data").path("alerts")) {
            if (alert.equals(a.path("labels").path("alertname").asText())
                    && QUEUE.equals(a.path("labels").path("queue").asText())) {
                found.add(a);
            }
        }
        return found;
    }

    private static JsonNode alerts() {
        return json("/api/v1/alerts");
    }

    /** The values of an instant query's result, sorted. */
    private static List<Double> values(String query) {
        List<Double> values = new ArrayList<>();
        for (JsonNode series : json("/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8))
                .path("data").path("result")) {
            values.add(series.path("value").path(1).asDouble());
        }
        values.sort(null);
        return values;
    }

    private static JsonNode json(String path) {
        try {
            return JSON.readTree(prometheus.get(path));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String exporterSeries(String... prefixes) {
        StringBuilder lines = new StringBuilder();
        for (String line : exporter.get("/metrics").split("\n")) {
            for (String prefix : prefixes) {
                if (line.startsWith(prefix)) {
                    lines.append(line).append('\n');
                }
            }
        }
        return lines.toString();
    }

    private static Set<String> missing(Set<String> wanted, Set<String> exported) {
        Set<String> missing = new TreeSet<>(wanted);
        missing.removeAll(exported);
        return missing;
    }

    private static void superuser(String sql, Object... args) {
        try (Connection c = db.superuser().getConnection()) {
            Jdbc.exec(c, sql, args);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.pgque.client.PgQue;
import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Jdbc;
import io.prometheus.jmx.JmxCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.strimzi.api.kafka.model.connect.KafkaConnect;
import io.strimzi.api.kafka.model.connect.build.Plugin;
import io.strimzi.api.kafka.model.connector.KafkaConnector;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What deploy/ ships, against the real thing: each Strimzi resource parsed into Strimzi's own API
 * model, its connector config accepted by the connector's validate() in a worker that loaded the
 * plugin archives (a real PostgreSQL behind it), and the Prometheus JMX exporter rules run by
 * the exporter over that worker's MBeans while both connectors move records, turning out every
 * metric docs/production.md documents and the Grafana dashboard, the alert rules and Strimzi's
 * Kafka Connect dashboard query; and the postgres_exporter queries run as a reader, making the
 * engine's metrics the dashboard and the alert rules read.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DeploymentFilesIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    /** Strimzi's Kubernetes Secret provider references, e.g. ${secrets:pgque/pgque-db:sink-user}. */
    private static final Pattern SECRET = Pattern.compile("\\$\\{secrets:[^:}]+:([^}]+)}");

    /**
     * What Strimzi's Kafka Connect dashboard (packaging/examples/metrics/.../strimzi-kafka-connect.json)
     * queries from the workers' JMX exporter, which must keep working on these rules. Its JVM panels
     * read the agent's own JVM metrics, which no rule makes.
     */
    private static final Set<String> STRIMZI_DASHBOARD = Set.of("kafka_connect_worker_connector_count",
            "kafka_connect_worker_task_count", "kafka_consumer_connection_count", "kafka_producer_connection_count",
            "kafka_admin_client_connection_count", "kafka_producer_outgoing_byte_total", "kafka_consumer_incoming_byte_total",
            "kafka_connect_coordinator_assigned_connectors", "kafka_connect_coordinator_assigned_tasks",
            "kafka_connect_worker_rebalance_rebalancing", "kafka_connect_worker_connector_running_task_count",
            "kafka_connect_worker_connector_paused_task_count", "kafka_connect_worker_connector_failed_task_count",
            "kafka_connect_worker_connector_unassigned_task_count", "kafka_connect_worker_connector_destroyed_task_count",
            "kafka_connect_connector_status", "kafka_connect_connector_connector_class",
            "kafka_connect_connector_connector_version", "kafka_connect_connector_connector_type",
            "kafka_connect_connector_task_status", "kafka_connect_task_error_total_record_failures");

    private static EmbeddedConnectCluster connect;
    private static EmbeddedPg.TestDatabase db;

    @BeforeAll
    static void start() throws IOException {
        db = EmbeddedPg.newDatabase("deploy_files").installEngine();
        PgQue.using(db.superuser()).queues().create("file_events");
        connect = Samples.startWorkerWithBothPlugins("pgque-deploy-files");
    }

    @AfterAll
    static void stop() {
        if (connect != null) {
            connect.stop();
        }
    }

    private static Path deploy(String file) {
        return Build.repoDir().resolve("deploy").resolve(file);
    }

    @Test
    void theKafkaConnectResourceBuildsAnImageWithBothPluginArchives() throws IOException {
        KafkaConnect resource = YAML.readValue(deploy("strimzi/kafka-connect.yaml").toFile(), KafkaConnect.class);
        assertEquals("KafkaConnect", resource.getKind());
        assertEquals("true", resource.getMetadata().getAnnotations().get("strimzi.io/use-connector-resources"),
                "the connectors are KafkaConnector resources");
        List<String> plugins = new ArrayList<>();
        for (Plugin plugin : resource.getSpec().getBuild().getPlugins()) {
            plugins.add(plugin.getName());
            assertEquals(1, plugin.getArtifacts().size(), plugin.getName());
            assertEquals("zip", plugin.getArtifacts().get(0).getType(), plugin.getName());
        }
        assertEquals(List.of("pgque-sink-connector", "pgque-source-connector"), plugins);
        assertNoUnknownFields("spec", resource.getSpec().getAdditionalProperties());
        assertNoUnknownFields("spec.build", resource.getSpec().getBuild().getAdditionalProperties());
        Map<String, Object> config = resource.getSpec().getConfig();
        assertEquals("io.strimzi.kafka.KubernetesSecretConfigProvider", config.get("config.providers.secrets.class"));
        assertTrue(resource.getSpec().getMetricsConfig() != null, "exports the connectors' metrics");
    }

    @Test
    void eachKafkaConnectorResourcePassesTheConnectorsValidate() throws IOException {
        List<Path> files = connectorFiles();
        assertEquals(2, files.size(), files::toString);
        for (Path file : files) {
            KafkaConnector resource = YAML.readValue(file.toFile(), KafkaConnector.class);
            assertEquals("pgque-connect", resource.getMetadata().getLabels().get("strimzi.io/cluster"), file.toString());
            assertNoUnknownFields(file + " spec", resource.getSpec().getAdditionalProperties());
            Map<String, String> config = connectorConfig(resource);
            ConfigInfos result = connect.validateConnectorConfig(resource.getSpec().getClassName(), config);
            List<String> errors = new ArrayList<>();
            for (ConfigInfo info : result.configs()) {
                info.configValue().errors().forEach(e -> errors.add(info.configValue().name() + ": " + e));
            }
            assertEquals(List.of(), errors, file + " does not validate");
        }
    }

    @Test
    void theExporterTurnsTheWorkersMBeansIntoTheDocumentedMetrics() throws Exception {
        connect.kafka().createTopic("file-events", 2);
        connect.kafka().createTopic("file-events-dlq", 1); // one broker here: one replica
        for (Path file : connectorFiles()) {
            KafkaConnector resource = YAML.readValue(file.toFile(), KafkaConnector.class);
            connect.configureConnector(resource.getMetadata().getName(), connectorConfig(resource));
        }
        connect.assertions().assertConnectorAndAtLeastNumTasksAreRunning("pgque-sink", 1, "sink not running");
        connect.assertions().assertConnectorAndAtLeastNumTasksAreRunning("pgque-source", 1, "source not running");
        try (KafkaProducer<byte[], byte[]> producer = connect.kafka().createProducer(Map.of())) {
            for (int i = 0; i < 40; i++) {
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>("file-events", ("key-" + (i % 4))
                        .getBytes(StandardCharsets.UTF_8), ("{\"seq\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                record.headers().add("event_type", "FileCreated".getBytes(StandardCharsets.UTF_8));
                producer.send(record).get();
            }
        }
        connect.kafka().consume(40, TIMEOUT.toMillis(), "file-events-out");

        // As the agent does: the collector registered in a registry (which sets up its own
        // scrape metrics), the registry scraped.
        PrometheusRegistry registry = new PrometheusRegistry();
        new JmxCollector(MonitoringFiles.JMX_RULES.toFile()).register(registry);
        Set<String> exported = new TreeSet<>();
        Set<String> dashboard = MonitoringFiles.startingWith(MonitoringFiles.dashboardMetrics(), "kafka_");
        Set<String> alerts = MonitoringFiles.startingWith(MonitoringFiles.alertMetrics(), "kafka_");
        Samples.await(TIMEOUT, () -> {
            exported.clear();
            MetricSnapshots snapshots = registry.scrape();
            for (MetricSnapshot snapshot : snapshots) {
                String name = snapshot.getMetadata().getPrometheusName();
                boolean counter = snapshot.getClass().getSimpleName().startsWith("Counter");
                exported.add(counter && !name.endsWith("_total") ? name + "_total" : name);
            }
            return exported.containsAll(documentedMetrics()) && exported.containsAll(dashboard)
                    && exported.containsAll(alerts) && exported.containsAll(STRIMZI_DASHBOARD);
        }, () -> "missing " + missing(documentedMetrics(), exported) + " (documented), "
                + missing(dashboard, exported) + " (dashboard), " + missing(alerts, exported) + " (alert rules) and "
                + missing(STRIMZI_DASHBOARD, exported) + " (Strimzi's dashboard) among " + exported);
    }

    /**
     * The postgres_exporter queries run as a login that has the reader role only, return exactly
     * the columns the file declares, and make every engine metric the dashboard and the alert rules
     * read (PrometheusAlertsIT runs the exporter itself, where it is installed).
     */
    @Test
    void theExporterQueriesRunAsAReaderAndMakeEveryEngineMetricTheDashboardAndTheAlertsRead() throws SQLException {
        String monitor = "deploy_files_monitor";
        PgQue pgque = PgQue.using(db.superuser());
        pgque.queues().create("exporter_check");
        try (Connection c = db.superuser().getConnection()) {
            Jdbc.exec(c, "do $$ begin if not exists (select 1 from pg_roles where rolname = '" + monitor + "') then"
                    + " create role " + monitor + " login; end if; end $$");
            Jdbc.exec(c, "grant pgque_reader to " + monitor);
            Jdbc.exec(c, "select pgque.subscribe_partitioned('exporter_check', 'slots', 2)");
            Jdbc.exec(c, "select pgque.subscribe('exporter_check', 'plain')");
        }
        Set<String> made = new TreeSet<>();
        try (Connection c = db.as(monitor).getConnection()) {
            MonitoringFiles.exporterQueries().forEach((namespace, query) -> {
                try (PreparedStatement ps = c.prepareStatement(query.sql()); ResultSet rs = ps.executeQuery()) {
                    List<String> columns = new ArrayList<>();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        columns.add(rs.getMetaData().getColumnName(i));
                    }
                    assertEquals(new ArrayList<>(query.columns().keySet()), columns, namespace + ": declared columns");
                    assertTrue(rs.next(), namespace + " returns rows for the queue, its consumer and its slots");
                } catch (SQLException e) {
                    throw new AssertionError(namespace + " fails as a reader: " + e.getMessage(), e);
                }
                made.addAll(query.metrics(namespace));
            });
        }
        Set<String> wanted = new TreeSet<>(MonitoringFiles.startingWith(MonitoringFiles.dashboardMetrics(), "pgque_"));
        wanted.addAll(MonitoringFiles.startingWith(MonitoringFiles.alertMetrics(), "pgque_"));
        assertEquals(Set.of(), missing(wanted, made), "read by the dashboard or the alert rules, made by no query");
    }

    /** Strimzi's model keeps fields it does not know instead of failing: a misspelt field would pass unseen. */
    private static void assertNoUnknownFields(String where, Map<String, Object> unknown) {
        assertTrue(unknown == null || unknown.isEmpty(), where + " has fields Strimzi does not know: " + unknown);
    }

    private static List<Path> connectorFiles() throws IOException {
        try (Stream<Path> files = Files.list(deploy("strimzi"))) {
            return files.filter(p -> p.getFileName().toString().matches("pgque-(sink|source)\\.yaml")).sorted().toList();
        }
    }

    /** The resource's connector config, its Kubernetes Secret references filled in for this test's database. */
    private static Map<String, String> connectorConfig(KafkaConnector resource) {
        Map<String, String> values = Map.of(
                "address", "127.0.0.1:" + db.port() + "/" + db.name(),
                "jdbc-url", db.jdbcUrl(),
                "sink-user", "postgres", "sink-password", "postgres",
                "source-user", "postgres", "source-password", "postgres");
        Map<String, String> config = new LinkedHashMap<>();
        config.put("name", resource.getMetadata().getName());
        config.put("connector.class", resource.getSpec().getClassName());
        config.put("tasks.max", Integer.toString(resource.getSpec().getTasksMax()));
        resource.getSpec().getConfig().forEach((key, value) -> {
            Matcher secret = SECRET.matcher(String.valueOf(value));
            StringBuilder filled = new StringBuilder();
            while (secret.find()) {
                assertTrue(values.containsKey(secret.group(1)), "no test value for secret key " + secret.group(1));
                secret.appendReplacement(filled, Matcher.quoteReplacement(values.get(secret.group(1))));
            }
            secret.appendTail(filled);
            config.put(key, filled.toString());
        });
        return config;
    }

    /** The metric names docs/production.md lists, between its metrics markers. */
    private static Set<String> documentedMetrics() {
        try {
            String page = Files.readString(Build.repoDir().resolve("docs/production.md"));
            String table = page.substring(page.indexOf("<!-- metrics:begin -->"), page.indexOf("<!-- metrics:end -->"));
            Set<String> names = new TreeSet<>();
            Matcher name = Pattern.compile("`(kafka_connect_[a-z0-9_]+)`").matcher(table);
            while (name.find()) {
                names.add(name.group(1));
            }
            assertFalse(names.isEmpty(), "no metric names between the markers of docs/production.md");
            return names;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<String> missing(Set<String> wanted, Set<String> exported) {
        Set<String> missing = new TreeSet<>(wanted);
        missing.removeAll(exported);
        return missing;
    }
}

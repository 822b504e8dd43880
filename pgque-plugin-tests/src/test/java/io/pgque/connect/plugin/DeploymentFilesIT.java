/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.pgque.client.PgQue;
import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Jdbc;
import io.prometheus.jmx.JmxCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
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
 * What deploy/ ships, against the real thing: each Strimzi resource of the release folder (the
 * copy a user applies, version and checksums filled in) read into the API model of Strimzi 1.x and
 * checked as API v1 ({@link StrimziModelCheck}), the plugin archives' sha512sum those of the
 * archives this build made, the Role and RoleBinding letting the Connect pods read every Secret the
 * connectors name, no namespace written anywhere; each connector config accepted by the
 * connector's validate() in a worker that loaded the plugin archives (a real PostgreSQL behind
 * it), and the Prometheus JMX exporter rules run by the exporter over that worker's MBeans while
 * both connectors move records, turning out every metric docs/production.md documents and the
 * Grafana dashboard, the alert rules and Strimzi's Kafka Connect dashboard query; and the
 * postgres_exporter queries run as a reader, making the engine's metrics the dashboard and the
 * alert rules read.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DeploymentFilesIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    /** Strimzi's Kubernetes Secret provider references, ${secrets:[<namespace>/]<secret>:<key>}. */
    private static final Pattern SECRET = Pattern.compile("\\$\\{secrets:(?:([^/:}]+)/)?([^:}]+):([^}]+)}");

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

    private static List<JsonNode> strimzi;

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

    /** The release folder's deploy/strimzi: what a user applies. */
    private static Path released(String file) {
        return Build.releaseDir().resolve("deploy/strimzi").resolve(file);
    }

    private static List<Path> strimziFiles() throws IOException {
        try (Stream<Path> files = Files.list(Build.releaseDir().resolve("deploy/strimzi"))) {
            return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    /** The Strimzi resources as Strimzi's model reads them, read once (skips the calling test without a Java 21). */
    private static synchronized List<JsonNode> strimzi() throws IOException, InterruptedException {
        if (strimzi == null) {
            strimzi = StrimziModelCheck.read(strimziFiles());
        }
        return strimzi;
    }

    private static JsonNode resource(String kind, String name) throws IOException, InterruptedException {
        return strimzi().stream().filter(r -> r.path("kind").asText().equals(kind)
                        && r.path("model").path("metadata").path("name").asText().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in " + strimzi));
    }

    /** The two KafkaConnector resources as YAML trees (what validate and the worker get needs no model). */
    private static List<JsonNode> connectors() throws IOException {
        List<JsonNode> connectors = new ArrayList<>();
        for (String file : List.of("pgque-sink.yaml", "pgque-source.yaml")) {
            JsonNode resource = YAML.readTree(released(file).toFile());
            assertEquals("KafkaConnector", resource.path("kind").asText(), file);
            connectors.add(resource);
        }
        return connectors;
    }

    @Test
    void everyStrimziResourceIsValidV1ForStrimzisOwnModel() throws Exception {
        assertEquals(List.of("KafkaConnect", "KafkaConnector", "KafkaConnector"),
                strimzi().stream().map(r -> r.path("kind").asText()).sorted().toList());
        for (JsonNode resource : strimzi()) {
            assertEquals("v1", resource.path("version").asText(), resource.path("file").asText());
            List<String> problems = new ArrayList<>();
            resource.path("problems").forEach(p -> problems.add(p.asText()));
            assertEquals(List.of(), problems, resource.path("file").asText());
        }
    }

    @Test
    void theKafkaConnectResourceBuildsAnImageWithThisBuildsPluginArchives() throws Exception {
        JsonNode connect = resource("KafkaConnect", "pgque-connect").path("model");
        assertEquals("true", connect.path("metadata").path("annotations").path("strimzi.io/use-connector-resources").asText(),
                "the connectors are KafkaConnector resources");
        Map<String, PluginArchive> archives = Map.of("pgque-sink-connector", PluginArchive.SINK,
                "pgque-source-connector", PluginArchive.SOURCE);
        List<String> plugins = new ArrayList<>();
        for (JsonNode plugin : connect.path("spec").path("build").path("plugins")) {
            String name = plugin.path("name").asText();
            plugins.add(name);
            assertEquals(1, plugin.path("artifacts").size(), name);
            JsonNode artifact = plugin.path("artifacts").path(0);
            assertEquals("zip", artifact.path("type").asText(), name);
            PluginArchive archive = archives.get(name);
            assertTrue(artifact.path("url").asText().endsWith("/" + archive.zip().getFileName()), artifact.toString());
            assertEquals(Sha512.of(archive.zip()), artifact.path("sha512sum").asText(),
                    name + ": Strimzi checks the download against this, so it must be the archive this build made");
        }
        assertEquals(List.of("pgque-sink-connector", "pgque-source-connector"), plugins);
        assertEquals("io.strimzi.kafka.KubernetesSecretConfigProvider",
                connect.path("spec").path("config").path("config.providers.secrets.class").asText());
        assertFalse(connect.path("spec").path("metricsConfig").isMissingNode(), "exports the connectors' metrics");
    }

    /**
     * KubernetesSecretConfigProvider reads a Secret through the Kubernetes API as the Connect
     * pods' service account: secrets-access.yaml gives that account (Strimzi's name for it) get on
     * every Secret the connectors name, and nothing more.
     */
    @Test
    void theConnectPodsMayReadEverySecretTheConnectorsNameAndNothingElse() throws Exception {
        List<HasMetadata> rbac = rbac(released("secrets-access.yaml"));
        Role role = only(rbac, Role.class);
        RoleBinding binding = only(rbac, RoleBinding.class);
        Set<String> named = new TreeSet<>();
        for (JsonNode connector : connectors()) {
            connector.path("spec").path("config").forEach(value -> {
                Matcher secret = SECRET.matcher(value.asText());
                while (secret.find()) {
                    named.add(secret.group(2));
                }
            });
        }
        assertFalse(named.isEmpty(), "the connectors read their logins from Secrets");
        assertEquals(1, role.getRules().size(), role.getRules().toString());
        PolicyRule rule = role.getRules().get(0);
        assertEquals(List.of(""), rule.getApiGroups());
        assertEquals(List.of("secrets"), rule.getResources());
        assertEquals(List.of("get"), rule.getVerbs(), "the provider needs get, nothing else");
        assertEquals(named, new TreeSet<>(rule.getResourceNames()), "exactly the Secrets the connectors name");

        assertEquals("Role", binding.getRoleRef().getKind());
        assertEquals(role.getMetadata().getName(), binding.getRoleRef().getName());
        String account = resource("KafkaConnect", "pgque-connect").path("serviceAccount").asText();
        assertEquals(1, binding.getSubjects().size());
        Subject subject = binding.getSubjects().get(0);
        assertEquals("ServiceAccount", subject.getKind());
        assertEquals(account, subject.getName(), "Strimzi's service account of the Connect pods");
    }

    /** Every file applies into the namespace the user picks (kubectl apply -n): none names one. */
    @Test
    void noDeploymentFileNamesANamespace() throws IOException {
        List<String> named = new ArrayList<>();
        for (Path file : strimziFiles()) {
            for (JsonNode document : YAML.readValues(YAML.getFactory().createParser(file.toFile()), JsonNode.class).readAll()) {
                if (document.path("metadata").has("namespace")) {
                    named.add(file.getFileName() + ": metadata.namespace");
                }
                document.path("subjects").forEach(s -> {
                    if (s.has("namespace")) {
                        named.add(file.getFileName() + ": a subject's namespace");
                    }
                });
            }
            Matcher secret = SECRET.matcher(Files.readString(file));
            while (secret.find()) {
                if (secret.group(1) != null) {
                    named.add(file.getFileName() + ": " + secret.group());
                }
            }
        }
        assertEquals(List.of(), named, "namespaces written into deploy/strimzi");
    }

    @Test
    void eachKafkaConnectorResourcePassesTheConnectorsValidate() throws IOException {
        for (JsonNode resource : connectors()) {
            Map<String, String> config = connectorConfig(resource);
            ConfigInfos result = connect.validateConnectorConfig(config.get("connector.class"), config);
            List<String> errors = new ArrayList<>();
            for (ConfigInfo info : result.configs()) {
                info.configValue().errors().forEach(e -> errors.add(info.configValue().name() + ": " + e));
            }
            assertEquals(List.of(), errors, resource.path("metadata").path("name").asText() + " does not validate");
        }
    }

    @Test
    void theExporterTurnsTheWorkersMBeansIntoTheDocumentedMetrics() throws Exception {
        connect.kafka().createTopic("file-events", 2);
        connect.kafka().createTopic("file-events-dlq", 1); // one broker here: one replica
        for (JsonNode resource : connectors()) {
            connect.configureConnector(resource.path("metadata").path("name").asText(), connectorConfig(resource));
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

    private static List<HasMetadata> rbac(Path file) throws IOException {
        List<HasMetadata> resources = new ArrayList<>();
        for (JsonNode document : YAML.readValues(YAML.getFactory().createParser(file.toFile()), JsonNode.class).readAll()) {
            Class<? extends HasMetadata> type = switch (document.path("kind").asText()) {
                case "Role" -> Role.class;
                case "RoleBinding" -> RoleBinding.class;
                default -> throw new AssertionError(file + ": unexpected " + document.path("kind"));
            };
            assertEquals("rbac.authorization.k8s.io/v1", document.path("apiVersion").asText(), file.toString());
            resources.add(YAML.treeToValue(document, type));
        }
        return resources;
    }

    private static <T> T only(List<HasMetadata> resources, Class<T> type) {
        List<T> matching = resources.stream().filter(type::isInstance).map(type::cast).toList();
        assertEquals(1, matching.size(), type.getSimpleName() + " in " + resources);
        return matching.get(0);
    }

    /** The resource's connector config, its Kubernetes Secret references filled in for this test's database. */
    private static Map<String, String> connectorConfig(JsonNode resource) {
        Map<String, String> values = Map.of(
                "address", "127.0.0.1:" + db.port() + "/" + db.name(),
                "jdbc-url", db.jdbcUrl(),
                "sink-user", "postgres", "sink-password", "postgres",
                "source-user", "postgres", "source-password", "postgres");
        Map<String, String> config = new LinkedHashMap<>();
        config.put("name", resource.path("metadata").path("name").asText());
        config.put("connector.class", resource.path("spec").path("class").asText());
        config.put("tasks.max", resource.path("spec").path("tasksMax").asText());
        resource.path("spec").path("config").fields().forEachRemaining(entry -> {
            Matcher secret = SECRET.matcher(entry.getValue().asText());
            StringBuilder filled = new StringBuilder();
            while (secret.find()) {
                assertTrue(values.containsKey(secret.group(3)), "no test value for secret key " + secret.group(3));
                secret.appendReplacement(filled, Matcher.quoteReplacement(values.get(secret.group(3))));
            }
            secret.appendTail(filled);
            config.put(entry.getKey(), filled.toString());
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

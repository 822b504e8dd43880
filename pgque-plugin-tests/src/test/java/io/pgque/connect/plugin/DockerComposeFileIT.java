/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docker-compose.yml cannot be started where the build runs (no Docker engine), so it is read:
 * the services and images, the ports, that every host path it mounts exists in the repository
 * or in what the build made, that it agrees with config/connect-distributed.properties and with
 * the connector configs the setup job deploys (their passwords through the worker's
 * FileConfigProvider), and that Prometheus, the postgres exporter and Grafana find what they are
 * pointed at. What deploy/prometheus and deploy/grafana hold is checked by DeploymentFilesIT; here
 * only that the files this stack names are there.
 */
class DockerComposeFileIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)}");

    private static Path repo;
    private static Map<String, Object> services;
    private static Map<String, Object> namedVolumes;
    private static Properties worker;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void read() throws IOException {
        repo = Build.repoDir();
        try (Reader in = Files.newBufferedReader(repo.resolve("docker-compose.yml"))) {
            Map<String, Object> compose = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
            services = (Map<String, Object>) compose.get("services");
            namedVolumes = compose.get("volumes") == null ? Map.of() : (Map<String, Object>) compose.get("volumes");
        }
        worker = new Properties();
        try (Reader in = Files.newBufferedReader(repo.resolve("config/connect-distributed.properties"))) {
            worker.load(in);
        }
    }

    @Test
    void servicesAndImages() {
        assertEquals(Set.of("kafka", "postgres", "connect", "setup", "postgres-exporter", "prometheus", "grafana"),
                services.keySet());
        assertEquals("apache/kafka:" + Build.kafkaVersion(), service("kafka").get("image"),
                "the broker runs the Kafka version the connectors are built against");
        assertEquals("apache/kafka:" + Build.kafkaVersion(), service("connect").get("image"));
        assertEquals("postgres:17", service("postgres").get("image"));
        assertEquals("./docker/setup", service("setup").get("build"));
        assertTrue(String.valueOf(service("prometheus").get("image")).startsWith("prom/prometheus:v3."));
        assertTrue(String.valueOf(service("postgres-exporter").get("image"))
                .startsWith("quay.io/prometheuscommunity/postgres-exporter:"));
        assertTrue(String.valueOf(service("grafana").get("image")).startsWith("grafana/grafana:"));
    }

    @Test
    void publishedPorts() {
        assertEquals(List.of("9092:9092"), service("kafka").get("ports"));
        assertEquals(List.of("5432:5432"), service("postgres").get("ports"));
        assertEquals(List.of("8083:8083", "9404:9404"), service("connect").get("ports"));
        assertEquals(List.of("9187:9187"), service("postgres-exporter").get("ports"));
        assertEquals(List.of("9090:9090"), service("prometheus").get("ports"));
        assertEquals(List.of("3000:3000"), service("grafana").get("ports"));
        assertEquals("http://0.0.0.0:8083", worker.getProperty("listeners"), "the worker listens where compose publishes");
    }

    @Test
    void kafkaIsOneKraftNodeThatTheWorkerCanReach() {
        Map<String, Object> env = environment("kafka");
        assertEquals("broker,controller", env.get("KAFKA_PROCESS_ROLES"));
        assertEquals("1@kafka:9093", env.get("KAFKA_CONTROLLER_QUORUM_VOTERS"));
        Uuid.fromString(String.valueOf(env.get("CLUSTER_ID"))); // throws unless a valid Kafka cluster id
        for (String rf : List.of("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR")) {
            assertEquals(1, env.get(rf), rf + " on a single node");
        }
        String advertised = String.valueOf(env.get("KAFKA_ADVERTISED_LISTENERS"));
        String bootstrap = worker.getProperty("bootstrap.servers");
        assertTrue(advertised.contains("://" + bootstrap), "the worker's bootstrap.servers " + bootstrap
                + " is one of the broker's advertised listeners " + advertised);
        assertTrue(advertised.contains("://localhost:9092"), "host clients reach the published port: " + advertised);
    }

    @Test
    void workerRunsTheRepoConfigWithTheMountedArchivesAsItsPluginPath() {
        Map<String, Object> connect = service("connect");
        List<?> entrypoint = (List<?>) connect.get("entrypoint");
        assertEquals("/opt/kafka/bin/connect-distributed.sh", entrypoint.get(0));
        String configInContainer = String.valueOf(entrypoint.get(1));
        assertEquals("./config/connect-distributed.properties", hostPathMountedAt(connect, configInContainer));

        assertEquals("service_load", worker.getProperty("plugin.discovery"));
        String pluginPath = worker.getProperty("plugin.path");
        for (PluginArchive archive : PluginArchive.both()) {
            String hostPath = hostPathMountedAt(connect, pluginPath + "/" + archive.artifactId());
            assertEquals("./" + archive.artifactId() + "/target/plugin", hostPath);
            assertTrue(Files.isRegularFile(repo.resolve(hostPath).resolve(archive.topFolder()).resolve("manifest.json")),
                    hostPath + " holds the unpacked archive " + archive.topFolder());
        }
        assertEquals(Map.of("kafka", Map.of("condition", "service_healthy")), connect.get("depends_on"));
    }

    @Test
    void setupInstallsTheBuiltEngineAndDeploysTheRepoConfigs() throws IOException {
        Map<String, Object> setup = service("setup");
        assertEquals("./pgque-client/target/classes/io/pgque/client/pgque.sql", hostPathMountedAt(setup, "/setup/pgque.sql"));
        assertEquals("./docker/setup/setup.sh", hostPathMountedAt(setup, "/setup/setup.sh"));
        assertEquals("./config", hostPathMountedAt(setup, "/setup/config"));
        assertEquals("no", setup.get("restart"), "a one-shot job");

        String script = Files.readString(repo.resolve("docker/setup/setup.sh"));
        assertTrue(Pattern.compile("psql -v ON_ERROR_STOP=1 .*-f /setup/pgque.sql").matcher(script).find(),
                "installs the mounted engine script, stopping at the first error");
        String dockerfile = Files.readString(repo.resolve("docker/setup/Dockerfile"));
        assertTrue(dockerfile.contains("FROM " + service("postgres").get("image")), "psql of the server's major");

        Map<String, Object> env = environment("setup");
        for (String file : List.of("config/pgque-sink.json", "config/pgque-source.json")) {
            Path config = repo.resolve(file);
            assertTrue(Files.isRegularFile(config), file + " is what setup deploys; it is missing");
            JsonNode connector = JSON.readTree(config.toFile());
            assertFalse(connector.path("name").asText().isBlank(), file + " names its connector");
            // setup.sh replaces connection.url and connection.user with the stack's own; every other
            // ${UPPER_CASE} placeholder (the password's secrets file too) needs a value from the environment.
            connector.path("config").properties().forEach(entry -> {
                if (entry.getKey().equals("connection.url") || entry.getKey().equals("connection.user")) {
                    return;
                }
                Matcher m = PLACEHOLDER.matcher(entry.getValue().asText());
                while (m.find()) {
                    assertTrue(env.containsKey(m.group(1)), file + " uses ${" + m.group(1) + "} in " + entry.getKey()
                            + ", which the setup service's environment does not set");
                }
            });
        }
    }

    /**
     * No password in a deployed connector config: each sample names its password in the secrets
     * file, setup writes that file onto a volume, and the worker mounts it and resolves the
     * reference with its FileConfigProvider.
     */
    @Test
    void passwordsReachTheWorkerThroughItsFileConfigProvider() throws IOException {
        assertEquals("file", worker.getProperty("config.providers"));
        assertEquals("org.apache.kafka.common.config.provider.FileConfigProvider",
                worker.getProperty("config.providers.file.class"));
        String secretsFile = String.valueOf(environment("setup").get("PGQUE_SECRETS_FILE"));
        String secretsDir = secretsFile.substring(0, secretsFile.lastIndexOf('/'));
        assertEquals("secrets", hostPathMountedAt(service("setup"), secretsDir), "setup writes the file");
        assertEquals("secrets", hostPathMountedAt(service("connect"), secretsDir), "the worker reads it");
        assertTrue(namedVolumes.containsKey("secrets"), "a named volume");
        assertTrue(volumeMountedAt(service("connect"), secretsDir).endsWith(":ro"), "read-only for the worker");

        String script = Files.readString(repo.resolve("docker/setup/setup.sh"));
        for (String[] sample : new String[][] {{"config/pgque-sink.json", "sink-password"},
                {"config/pgque-source.json", "source-password"}}) {
            String password = JSON.readTree(repo.resolve(sample[0]).toFile()).path("config").path("connection.password").asText();
            assertEquals("${file:${PGQUE_SECRETS_FILE}:" + sample[1] + "}", password, sample[0]);
            assertTrue(script.contains(sample[1] + "=%s"), "setup.sh writes " + sample[1]);
        }
    }

    /**
     * The monitoring: the worker runs the JMX exporter's agent (as the build made it) with the
     * rules of deploy/prometheus; Prometheus scrapes it and the postgres exporter and loads the
     * rule files of deploy/prometheus; Grafana reads its data source and the dashboards of
     * deploy/grafana.
     */
    @Test
    @SuppressWarnings("unchecked")
    void prometheusScrapesTheWorkerAndTheDatabaseAndGrafanaShowsTheDashboard() throws IOException {
        String agent = String.valueOf(environment("connect").get("KAFKA_OPTS"));
        Matcher javaagent = Pattern.compile("-javaagent:(\\S+)=(\\d+):(\\S+)").matcher(agent);
        assertTrue(javaagent.matches(), agent);
        assertTrue(Files.isRegularFile(hostFile(service("connect"), javaagent.group(1))),
                javaagent.group(1) + ": the exporter agent the build copies into pgque-quickstart/target/jmx-exporter");
        assertEquals("9404", javaagent.group(2));
        Path exporterRules = hostFile(service("connect"), javaagent.group(3));
        assertTrue(Files.isRegularFile(exporterRules), exporterRules + " (the rules of deploy/prometheus)");

        Map<String, Object> prometheus;
        try (Reader in = Files.newBufferedReader(repo.resolve(hostPathMountedAt(service("prometheus"),
                "/etc/prometheus/prometheus.yml")))) {
            prometheus = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
        }
        Set<String> targets = new TreeSet<>();
        for (Object job : (List<?>) prometheus.get("scrape_configs")) {
            for (Object config : (List<?>) ((Map<String, Object>) job).get("static_configs")) {
                targets.addAll((List<String>) ((Map<String, Object>) config).get("targets"));
            }
        }
        assertEquals(Set.of("connect:9404", "postgres-exporter:9187"), targets);
        for (Object ruleFiles : (List<?>) prometheus.get("rule_files")) {
            String glob = String.valueOf(ruleFiles);
            Path dir = hostFile(service("prometheus"), glob.substring(0, glob.lastIndexOf('/')));
            assertTrue(Files.isDirectory(dir), glob + " lies in a mounted folder");
            PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob.substring(glob.lastIndexOf('/') + 1));
            assertFalse(matcher.matches(exporterRules.getFileName()), "the exporter's rules are not alert rules: " + glob);
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : files.filter(f -> matcher.matches(f.getFileName())).toList()) {
                    try (Reader in = Files.newBufferedReader(file)) {
                        Map<String, Object> rules = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
                        assertTrue(rules.get("groups") instanceof List, file + " matches " + glob + ": a Prometheus rule file");
                    }
                }
            }
        }

        String queries = String.valueOf(environment("postgres-exporter").get("PG_EXPORTER_EXTEND_QUERY_PATH"));
        assertEquals("./deploy/prometheus",
                hostPathMountedAt(service("postgres-exporter"), queries.substring(0, queries.lastIndexOf('/'))),
                "the exporter reads its PgQue queries from deploy/prometheus");
        assertTrue(String.valueOf(environment("postgres-exporter").get("DATA_SOURCE_URI")).startsWith("postgres:5432/"));

        Path provisioning = repo.resolve(hostPathMountedAt(service("grafana"), "/etc/grafana/provisioning"));
        String datasource = Files.readString(provisioning.resolve("datasources/prometheus.yml"));
        assertTrue(datasource.contains("url: http://prometheus:9090"), datasource);
        Map<String, Object> dashboards;
        try (Reader in = Files.newBufferedReader(provisioning.resolve("dashboards/pgque.yml"))) {
            dashboards = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
        }
        String path = String.valueOf(((Map<String, Object>) ((Map<String, Object>) ((List<?>) dashboards.get("providers"))
                .get(0)).get("options")).get("path"));
        assertEquals("./deploy/grafana", hostPathMountedAt(service("grafana"), path));
        try (Stream<Path> files = Files.list(repo.resolve("deploy/grafana"))) {
            assertTrue(files.anyMatch(f -> f.toString().endsWith(".json")), "deploy/grafana holds a dashboard");
        }
    }

    @Test
    void everyMountedHostPathExists() {
        List<String> missing = new ArrayList<>();
        Set<String> checked = new TreeSet<>();
        for (String name : services.keySet()) {
            for (Object volume : volumes(service(name))) {
                String hostPath = String.valueOf(volume).split(":")[0];
                if (namedVolumes.containsKey(hostPath)) {
                    continue;
                }
                assertTrue(hostPath.startsWith("./"), name + " mounts " + hostPath
                        + ": only paths inside the repository, or a volume the file declares");
                checked.add(hostPath);
                if (!Files.exists(repo.resolve(hostPath))) {
                    missing.add(name + ": " + hostPath);
                }
            }
        }
        assertFalse(checked.isEmpty());
        assertTrue(missing.isEmpty(), "mounted but missing (not in the repo, not built): " + missing);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> service(String name) {
        Object service = services.get(name);
        assertTrue(service instanceof Map, "service " + name);
        return (Map<String, Object>) service;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> environment(String name) {
        return (Map<String, Object>) service(name).get("environment");
    }

    private static List<?> volumes(Map<String, Object> service) {
        Object volumes = service.get("volumes");
        return volumes == null ? List.of() : (List<?>) volumes;
    }

    /** The host side of the volume mounted at {@code containerPath}; fails when none is. */
    private static String hostPathMountedAt(Map<String, Object> service, String containerPath) {
        return volumeMountedAt(service, containerPath).split(":")[0];
    }

    /** The volume entry mounted at {@code containerPath}, as written; fails when none is. */
    private static String volumeMountedAt(Map<String, Object> service, String containerPath) {
        for (Object volume : volumes(service)) {
            String[] parts = String.valueOf(volume).split(":");
            if (parts.length >= 2 && parts[1].equals(containerPath)) {
                return String.valueOf(volume);
            }
        }
        throw new AssertionError("nothing mounted at " + containerPath + ": " + volumes(service));
    }

    /** The file of the repository (or of the build) that {@code service} sees at {@code containerPath}. */
    private static Path hostFile(Map<String, Object> service, String containerPath) {
        for (Object volume : volumes(service)) {
            String[] parts = String.valueOf(volume).split(":");
            if (parts.length >= 2 && parts[0].startsWith("./")
                    && (containerPath.equals(parts[1]) || containerPath.startsWith(parts[1] + "/"))) {
                return repo.resolve(parts[0]).resolve(containerPath.substring(parts[1].length()).replaceFirst("^/", ""));
            }
        }
        throw new AssertionError("nothing of the repository is mounted at " + containerPath + ": " + volumes(service));
    }
}

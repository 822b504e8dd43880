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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docker-compose.yml cannot be started where the build runs (no Docker engine), so it is read:
 * the services and images, the ports, that every host path it mounts exists in the repository
 * or in what the build made, and that it agrees with config/connect-distributed.properties and
 * with the connector configs the setup job deploys.
 */
class DockerComposeFileIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)}");

    private static Path repo;
    private static Map<String, Object> services;
    private static Properties worker;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void read() throws IOException {
        repo = Build.repoDir();
        try (Reader in = Files.newBufferedReader(repo.resolve("docker-compose.yml"))) {
            Map<String, Object> compose = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
            services = (Map<String, Object>) compose.get("services");
        }
        worker = new Properties();
        try (Reader in = Files.newBufferedReader(repo.resolve("config/connect-distributed.properties"))) {
            worker.load(in);
        }
    }

    @Test
    void servicesAndImages() {
        assertEquals(Set.of("kafka", "postgres", "connect", "setup"), services.keySet());
        assertEquals("apache/kafka:" + Build.kafkaVersion(), service("kafka").get("image"),
                "the broker runs the Kafka version the connectors are built against");
        assertEquals("apache/kafka:" + Build.kafkaVersion(), service("connect").get("image"));
        assertEquals("postgres:17", service("postgres").get("image"));
        assertEquals("./docker/setup", service("setup").get("build"));
    }

    @Test
    void publishedPorts() {
        assertEquals(List.of("9092:9092"), service("kafka").get("ports"));
        assertEquals(List.of("5432:5432"), service("postgres").get("ports"));
        assertEquals(List.of("8083:8083"), service("connect").get("ports"));
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
            // setup.sh replaces connection.* with the stack's own; every other ${UPPER_CASE}
            // placeholder needs a value from the environment.
            connector.path("config").properties().forEach(entry -> {
                if (entry.getKey().startsWith("connection.")) {
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

    @Test
    void everyMountedHostPathExists() {
        List<String> missing = new ArrayList<>();
        Set<String> checked = new TreeSet<>();
        for (String name : services.keySet()) {
            for (Object volume : volumes(service(name))) {
                String hostPath = String.valueOf(volume).split(":")[0];
                assertTrue(hostPath.startsWith("./"), name + " mounts " + hostPath + ": only paths inside the repository");
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
        for (Object volume : volumes(service)) {
            String[] parts = String.valueOf(volume).split(":");
            if (parts.length >= 2 && parts[1].equals(containerPath)) {
                return parts[0];
            }
        }
        throw new AssertionError("nothing mounted at " + containerPath + ": " + volumes(service));
    }
}

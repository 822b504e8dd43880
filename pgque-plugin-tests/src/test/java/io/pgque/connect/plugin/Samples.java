/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.testsupport.Await;
import io.pgque.testsupport.EmbeddedConnect;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the tests of shipped things share: the sample connector files, waiting on conditions, clean folders. */
final class Samples {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{[A-Z][A-Z0-9_]*}");

    private Samples() {
    }

    /**
     * A sample connector config from config/ (its "name" included), changed only where a
     * deployment must: the connection settings (placeholders there) point at {@code jdbcUrl} as
     * user postgres. Fails when another deployment placeholder is left.
     */
    static Map<String, String> connector(String file, String jdbcUrl) {
        Map<String, String> config = read(file);
        config.put("connection.url", jdbcUrl);
        config.put("connection.user", "postgres");
        config.put("connection.password", "postgres"); // the embedded server trusts local logins
        config.replaceAll((key, value) -> fill(file, key, value, Map.of()));
        return config;
    }

    /**
     * A sample connector config from config/ (its "name" included) as an operator deploys it: its
     * deployment placeholders filled in from {@code values}, nothing else changed. Fails on a
     * placeholder {@code values} lacks.
     */
    static Map<String, String> filled(String file, Map<String, String> values) {
        Map<String, String> config = read(file);
        config.replaceAll((key, value) -> fill(file, key, value, values));
        return config;
    }

    private static Map<String, String> read(String file) {
        try {
            JsonNode sample = JSON.readTree(Build.repoDir().resolve("config").resolve(file).toFile());
            Map<String, String> config = new LinkedHashMap<>();
            config.put("name", sample.path("name").asText());
            sample.path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
            return config;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String fill(String file, String key, String value, Map<String, String> values) {
        Matcher placeholder = PLACEHOLDER.matcher(value);
        StringBuilder filled = new StringBuilder();
        while (placeholder.find()) {
            String name = placeholder.group().substring(2, placeholder.group().length() - 1);
            if (!values.containsKey(name)) {
                throw new AssertionError(file + ": " + key + " has deployment placeholder " + placeholder.group()
                        + " this test does not fill in");
            }
            placeholder.appendReplacement(filled, Matcher.quoteReplacement(values.get(name)));
        }
        return placeholder.appendTail(filled).toString();
    }

    /**
     * A Connect worker and a broker in this JVM whose plugin.path holds both plugin archives,
     * unzipped as an operator would, into a fresh folder: the only place the worker can find the
     * connectors.
     */
    static EmbeddedConnectCluster startWorkerWithBothPlugins(String name) throws IOException {
        return startWorkerWithBothPlugins(name, Map.of());
    }

    /** As {@link #startWorkerWithBothPlugins(String)}, with more worker settings. */
    static EmbeddedConnectCluster startWorkerWithBothPlugins(String name, Map<String, String> worker) throws IOException {
        Path pluginPath = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), name + "-plugins-");
        for (PluginArchive archive : PluginArchive.both()) {
            archive.unpackInto(pluginPath);
        }
        return EmbeddedConnect.cluster(name, 1)
                .worker("plugin.path", pluginPath.toString())
                .worker("plugin.discovery", "service_load")
                .flushOffsetsEvery(Duration.ofSeconds(1))
                .worker(worker)
                .start();
    }

    /**
     * A KRaft broker in this JVM, set up as docker-compose.yml sets its one broker: one replica for
     * internal topics, and no wait before a new group's first rebalance.
     */
    static EmbeddedKafkaCluster startOneBroker() {
        Properties broker = new Properties();
        broker.put("offsets.topic.replication.factor", "1");
        broker.put("transaction.state.log.replication.factor", "1");
        broker.put("transaction.state.log.min.isr", "1");
        broker.put("group.initial.rebalance.delay.ms", "0");
        EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, broker);
        kafka.start();
        return kafka;
    }

    /** Waits until {@code condition} holds, checking every 100 ms; fails with {@code failure} after {@code timeout}. */
    static void await(Duration timeout, BooleanSupplier condition, Supplier<String> failure) {
        Await.until(failure, timeout, Duration.ofMillis(100), condition);
    }

    /** Deletes {@code root} and everything under it, if it exists. */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A worker properties file made from the shipped {@code config/connect-distributed.properties}
 * the way an operator would: the same file with only its deployment lines changed (the broker,
 * the plugin folder, where the REST API listens and how other workers reach it). Every other
 * setting, the recovery settings above all, is tested as shipped.
 */
public final class WorkerFile {

    /** The lines a deployment changes; docs/operations.md names the same four. */
    public static final Set<String> DEPLOYMENT_KEYS =
            Set.of("bootstrap.servers", "plugin.path", "listeners", "rest.advertised.host.name");

    private WorkerFile() {
    }

    /** The lines that name a Connect cluster: workers sharing them form one cluster. */
    public static final Set<String> CLUSTER_KEYS =
            Set.of("group.id", "config.storage.topic", "offset.storage.topic", "status.storage.topic");

    /**
     * Writes {@code target}: {@code shipped} with the values of {@code deployment} (keys of
     * {@link #DEPLOYMENT_KEYS} only) in place of its own. Fails when a deployment key is not in
     * the shipped file (a renamed line would otherwise leave the shipped value in force).
     */
    public static Path write(Path shipped, Map<String, String> deployment, Path target) {
        if (!DEPLOYMENT_KEYS.containsAll(deployment.keySet())) {
            throw new IllegalArgumentException("only " + DEPLOYMENT_KEYS + " are deployment lines, not " + deployment.keySet());
        }
        return replace(shipped, deployment, target);
    }

    /**
     * As {@link #write}, for a cluster of its own: the shipped group id and internal topic names
     * get {@code "-" + cluster} appended, so that several clusters can share one broker.
     */
    public static Path writeForCluster(Path shipped, Map<String, String> deployment, String cluster, Path target) {
        if (!DEPLOYMENT_KEYS.containsAll(deployment.keySet())) {
            throw new IllegalArgumentException("only " + DEPLOYMENT_KEYS + " are deployment lines, not " + deployment.keySet());
        }
        Map<String, String> lines = new java.util.HashMap<>(deployment);
        Map<String, String> shippedSettings = settings(shipped);
        for (String key : CLUSTER_KEYS) {
            lines.put(key, shippedSettings.get(key) + "-" + cluster);
        }
        return replace(shipped, lines, target);
    }

    private static Path replace(Path shipped, Map<String, String> deployment, Path target) {
        try {
            List<String> out = new ArrayList<>();
            Set<String> replaced = new HashSet<>();
            for (String line : Files.readAllLines(shipped)) {
                String key = keyOf(line);
                if (key != null && deployment.containsKey(key)) {
                    out.add(key + "=" + deployment.get(key));
                    replaced.add(key);
                } else {
                    out.add(line);
                }
            }
            if (!replaced.equals(deployment.keySet())) {
                Set<String> missing = new HashSet<>(deployment.keySet());
                missing.removeAll(replaced);
                throw new IllegalStateException(shipped + " has no line for " + missing);
            }
            Files.createDirectories(target.getParent());
            Files.write(target, out);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot derive " + target + " from " + shipped, e);
        }
    }

    /** The settings in force in a properties file (comments and blank lines skipped), in order. */
    public static Map<String, String> settings(Path file) {
        try {
            Map<String, String> settings = new LinkedHashMap<>();
            for (String line : Files.readAllLines(file)) {
                String key = keyOf(line);
                if (key != null) {
                    settings.put(key, line.substring(line.indexOf('=') + 1).trim());
                }
            }
            return settings;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String keyOf(String line) {
        String trimmed = line.trim();
        if (trimmed.isEmpty() || trimmed.startsWith("#") || trimmed.startsWith("!") || !trimmed.contains("=")) {
            return null;
        }
        return trimmed.substring(0, trimmed.indexOf('=')).trim();
    }
}

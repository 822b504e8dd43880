/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs {@link StrimziModel} over YAML files in a child JVM of Java 21 or newer, which Strimzi 1.x's
 * API model needs (this build and its tests run on 17). The JVM is the one named by
 * {@code -Dpgque.strimzi.java} or {@code PGQUE_STRIMZI_JAVA} (a JDK folder or its bin/java), else
 * this JVM if it is new enough, else the newest JDK 21+ under /usr/lib/jvm. Without one the test
 * class is skipped with one line saying so, unless {@code -Dpgque.test.strimzi=required} or
 * {@code PGQUE_TEST_STRIMZI=required} makes that a failure.
 */
final class StrimziModelCheck {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REQUIREMENT = "pgque.test.strimzi";

    private StrimziModelCheck() {
    }

    /** One entry per Strimzi resource of the files: file, kind, version, problems, model (the model's view of it). */
    static List<JsonNode> read(List<Path> files) throws IOException, InterruptedException {
        Path java = java21().orElseGet(() -> {
            String need = "the Strimzi v1 checks need a Java 21 or newer for Strimzi's API model (none found: set "
                    + "-Dpgque.strimzi.java or PGQUE_STRIMZI_JAVA to a JDK 21+, or install one under /usr/lib/jvm)";
            if (required()) {
                throw new IllegalStateException(need + " (required by -D" + REQUIREMENT + " or PGQUE_TEST_STRIMZI)");
            }
            System.out.println("[skipped] " + need + "; -D" + REQUIREMENT + "=required or PGQUE_TEST_STRIMZI=required makes this a failure");
            Assumptions.abort(need);
            return null;
        });
        List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                StrimziModel.class.getName()));
        files.forEach(f -> command.add(f.toString()));
        Path err = Files.createTempFile(Path.of(System.getProperty("java.io.tmpdir")), "strimzi-model-", ".log");
        Process process = new ProcessBuilder(command).redirectError(err.toFile()).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException("reading " + files + " into Strimzi's model failed with " + java + ": "
                    + Files.readString(err));
        }
        List<JsonNode> resources = new ArrayList<>();
        JSON.readTree(new String(out, StandardCharsets.UTF_8)).forEach(resources::add);
        return resources;
    }

    private static Optional<Path> java21() {
        String named = System.getProperty("pgque.strimzi.java", System.getenv().getOrDefault("PGQUE_STRIMZI_JAVA", ""));
        if (!named.isBlank()) {
            Path p = Path.of(named);
            Path bin = Files.isDirectory(p) ? p.resolve("bin/java") : p;
            if (!Files.isExecutable(bin)) {
                throw new IllegalStateException("pgque.strimzi.java / PGQUE_STRIMZI_JAVA names no java: " + named);
            }
            return Optional.of(bin);
        }
        if (Runtime.version().feature() >= 21) {
            return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.filter(h -> Files.isExecutable(h.resolve("bin/java")) && feature(h) >= 21)
                    .max((a, b) -> Integer.compare(feature(a), feature(b)))
                    .map(h -> h.resolve("bin/java"));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The Java feature release a JDK folder's release file names, 0 if it names none. */
    private static int feature(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Integer.parseInt(v.split("[.+-]")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    private static boolean required() {
        String value = System.getProperty(REQUIREMENT, "");
        if (value.isEmpty()) {
            value = System.getenv().getOrDefault("PGQUE_TEST_STRIMZI", "");
        }
        return switch (value) {
            case "", "auto" -> false;
            case "required" -> true;
            default -> throw new IllegalArgumentException(REQUIREMENT + " must be auto or required, not: " + value);
        };
    }
}

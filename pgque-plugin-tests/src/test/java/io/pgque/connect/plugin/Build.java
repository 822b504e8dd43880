/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import java.nio.file.Files;
import java.nio.file.Path;

/** What the Maven build tells the tests: where the repo is, the versions, where the archives are. */
final class Build {

    private Build() {
    }

    static Path repoDir() {
        Path dir = Path.of(required("pgque.repo.dir")).toAbsolutePath().normalize();
        if (!Files.isRegularFile(dir.resolve("pom.xml"))) {
            throw new IllegalStateException("pgque.repo.dir=" + dir + " is not the repository root (no pom.xml)");
        }
        return dir;
    }

    static String projectVersion() {
        return required("pgque.project.version");
    }

    /** The release folder pgque-distribution made: target/pgque-kafka-connect-<version>. */
    static Path releaseDir() {
        Path dir = Path.of(required("pgque.release.dir"));
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("no release folder at " + dir + ": build it first "
                    + "(./mvnw package -DskipTests from the repository root, or ./mvnw verify)");
        }
        return dir;
    }

    static String kafkaVersion() {
        return required("pgque.kafka.version");
    }

    /**
     * A system property the failsafe configuration sets; a clear failure when the test runs
     * outside Maven or when a ${...} was not filled in.
     */
    static String required(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank() || value.contains("${")) {
            throw new IllegalStateException("system property " + name + " is not set (" + value + "): run this test "
                    + "through Maven: ./mvnw verify, or ./mvnw -pl pgque-plugin-tests verify after packaging the connectors");
        }
        return value;
    }
}

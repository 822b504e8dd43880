/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the repository's {@code config/} folder with the connector files. The quickstart may be
 * started from the repository root (the documented command) or from its module folder (tests,
 * IDEs), so it looks in the working directory and its parents.
 */
public final class ConfigDirectory {

    public static final String SINK_FILE = "pgque-sink.json";
    public static final String SOURCE_FILE = "pgque-source.json";

    private ConfigDirectory() {
    }

    /** {@code explicit} if given, else the nearest {@code config/} upwards from {@code start} holding the sink file. */
    public static Path locate(Optional<Path> explicit, Path start) {
        if (explicit.isPresent()) {
            Path dir = explicit.get();
            if (!Files.isRegularFile(dir.resolve(SINK_FILE)) || !Files.isRegularFile(dir.resolve(SOURCE_FILE))) {
                throw new IllegalStateException(dir.toAbsolutePath() + " must hold " + SINK_FILE + " and " + SOURCE_FILE);
            }
            return dir;
        }
        for (Path dir = start.toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("config");
            if (Files.isRegularFile(candidate.resolve(SINK_FILE)) && Files.isRegularFile(candidate.resolve(SOURCE_FILE))) {
                return candidate;
            }
        }
        throw new IllegalStateException("no config/" + SINK_FILE + " and config/" + SOURCE_FILE + " in "
                + start.toAbsolutePath() + " or above; run from the repository, or pass --config-dir=PATH");
    }
}

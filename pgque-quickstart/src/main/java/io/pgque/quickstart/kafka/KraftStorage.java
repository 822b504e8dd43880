/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.kafka;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * Formats a KRaft log directory, as {@code kafka-storage.sh format} does, but through the
 * library class the CLI itself uses: the CLI's entry point ends the JVM.
 */
final class KraftStorage {

    private KraftStorage() {
    }

    /**
     * Formats {@code logDir} for a single combined broker+controller with a new cluster id. A
     * directory formatted by an earlier run is left as it is, so its topics survive a restart.
     */
    static void formatIfNeeded(Path logDir, int nodeId, String controllerListener) throws Exception {
        // The formatter's own "ignore formatted" still insists on the cluster id it is given, and
        // the id of an earlier run is not known here; meta.properties marks a formatted directory.
        if (Files.exists(logDir.resolve("meta.properties"))) {
            return;
        }
        new Formatter()
                // the formatter reports on a stream; the quickstart reports progress its own way
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(nodeId)
                .setClusterId(Uuid.randomUuid().toString())
                .setReleaseVersion(MetadataVersion.latestProduction())
                .setControllerListenerName(controllerListener)
                .setMetadataLogDirectory(logDir.toString())
                .addDirectory(logDir.toString())
                .run();
    }
}

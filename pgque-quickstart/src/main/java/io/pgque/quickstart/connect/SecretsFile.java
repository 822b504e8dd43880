/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;

/**
 * The properties file the connector configs' {@code ${file:${PGQUE_SECRETS_FILE}:<key>}}
 * references point at: the worker's FileConfigProvider reads each connector's password from it,
 * so the configs the quickstart deploys, and what Connect's REST API returns of them, hold no
 * password. Readable by its owner only, where the file system has permissions.
 */
public final class SecretsFile {

    /** The keys the connector files in config/ read. */
    public static final String SINK_PASSWORD = "sink-password";
    public static final String SOURCE_PASSWORD = "source-password";

    private SecretsFile() {
    }

    /** Writes {@code dir/connector-secrets.properties} with {@code password} for both connectors; returns its path. */
    public static Path write(Path dir, String password) {
        Path file = dir.resolve("connector-secrets.properties");
        Properties secrets = new Properties();
        secrets.setProperty(SINK_PASSWORD, password);
        secrets.setProperty(SOURCE_PASSWORD, password);
        try {
            Files.deleteIfExists(file);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                secrets.store(out, "Database passwords of the quickstart's connectors (written at each start)");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file.toAbsolutePath();
    }
}

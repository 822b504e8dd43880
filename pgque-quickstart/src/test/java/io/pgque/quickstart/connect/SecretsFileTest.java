/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigTransformer;
import org.apache.kafka.common.config.provider.ConfigProvider;
import org.apache.kafka.common.config.provider.FileConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The passwords the quickstart deploys reach the connectors through Kafka's own FileConfigProvider. */
class SecretsFileTest {

    @Test
    void theSampleFilesPasswordReferencesResolveToTheDatabasePassword(@TempDir Path dir) throws IOException {
        String password = "p#w = d:\\x ü";
        Path file = SecretsFile.write(dir, password);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        }
        Placeholders placeholders = new Placeholders(Map.of("PGQUE_JDBC_URL", "jdbc:postgresql://localhost:1/postgres",
                "PGQUE_DB_ADDRESS", "localhost:1/postgres", "PGQUE_DB_USER", "postgres",
                "PGQUE_SECRETS_FILE", file.toString(), "KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"));
        Path config = ConfigDirectory.locate(Optional.empty(), Path.of(""));
        try (FileConfigProvider provider = new FileConfigProvider()) {
            provider.configure(Map.of());
            ConfigTransformer transformer = new ConfigTransformer(Map.<String, ConfigProvider>of("file", provider));
            for (String sample : new String[] {ConfigDirectory.SINK_FILE, ConfigDirectory.SOURCE_FILE}) {
                ConnectorDefinition connector = ConnectorConfigFile.read(config.resolve(sample), placeholders);
                String reference = connector.require("connection.password");
                assertEquals(password, transformer.transform(Map.of("p", reference)).data().get("p"), sample);
            }
        }
        SecretsFile.write(dir, "");
        try (FileConfigProvider provider = new FileConfigProvider()) {
            provider.configure(Map.of());
            assertEquals("", provider.get(file.toString()).data().get(SecretsFile.SINK_PASSWORD), "rewritten at each start");
        }
    }
}

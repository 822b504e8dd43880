/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.postgres;

import io.pgque.quickstart.RememberedPort;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A PostgreSQL server started from the binaries on the classpath, with its data in the
 * quickstart's data directory so a restart finds the queue and its events again.
 */
public final class EmbeddedDatabase implements AutoCloseable {

    private static final String USER = "postgres";

    private final EmbeddedPostgres postgres;
    private final Database database;

    private EmbeddedDatabase(EmbeddedPostgres postgres) {
        this.postgres = postgres;
        // zonky's server trusts local connections, so its superuser needs no password
        this.database = new Database(postgres.getJdbcUrl(USER, "postgres"), USER, "");
    }

    /** Starts the server on the port remembered in {@code dataDir} (or a new free one). */
    public static EmbeddedDatabase start(Path dataDir) {
        Path pgData = dataDir.resolve("postgres");
        try {
            Files.createDirectories(pgData);
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setDataDirectory(pgData)
                    // keep the data: a restart reuses the installed engine, queue and events
                    .setCleanDataDirectory(false)
                    .setPort(RememberedPort.in(dataDir.resolve("postgres.port")))
                    // the quickstart's single shutdown hook stops PostgreSQL last, after Connect
                    .setRegisterShutdownHook(false)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    // the source's ticker and the sink's pools need a few dozen sessions at most
                    .setServerConfig("max_connections", "100")
                    .start();
            return new EmbeddedDatabase(postgres);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL in " + pgData, e);
        }
    }

    public Database database() {
        return database;
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own, unlike the JVM-wide shared one: it can be stopped and
 * started again on the same port and data directory, so clients see a real server restart (their
 * sessions end, the data stays) and reconnect to the same URL.
 */
final class RestartablePostgres implements AutoCloseable {

    private final int port;
    private final Path dataDirectory;
    private EmbeddedPostgres server;

    private RestartablePostgres(int port, Path dataDirectory) {
        this.port = port;
        this.dataDirectory = dataDirectory;
    }

    static RestartablePostgres start(String name) throws IOException {
        RestartablePostgres postgres = new RestartablePostgres(freePort(), Files.createTempDirectory(name));
        postgres.startServer();
        return postgres;
    }

    /** Stops the server (fast shutdown: sessions are ended, committed work is kept) and starts it again. */
    synchronized void restart() throws IOException {
        server.close();
        server = null;
        startServer();
    }

    /** Stops the server; {@link #startAgain} brings it back on the same port with the same data. */
    synchronized void stopServer() throws IOException {
        server.close();
        server = null;
    }

    synchronized void startAgain() throws IOException {
        startServer();
    }

    /** Connections that survive a restart: each one is opened afresh against the fixed port. */
    DataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {"localhost"});
        ds.setPortNumbers(new int[] {port});
        ds.setDatabaseName("postgres");
        ds.setUser("postgres");
        return ds;
    }

    String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + port + "/postgres?user=postgres";
    }

    private void startServer() throws IOException {
        server = EmbeddedPostgres.builder()
                .setPort(port)
                .setDataDirectory(dataDirectory.toFile())
                // Kept across restarts; the first start finds the directory empty and runs initdb.
                .setCleanDataDirectory(false)
                // A clean shutdown flushes everything anyway; fsync only slows the test down.
                .setServerConfig("fsync", "off")
                .setServerConfig("max_connections", "100")
                .start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
        try (Stream<Path> files = Files.walk(dataDirectory)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (UncheckedIOException e) {
            // Left under target/, which the next clean removes.
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import io.pgque.testing.EmbeddedPg;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL server that belongs to the suite: a fixed port and a data directory that
 * survive {@link #restart}, so a restart looks to the connectors like the real thing (every
 * session ends, committed data stays, the same URL works again). The JVM-wide test server
 * cannot be stopped, hence this one.
 */
final class OwnPostgres implements AutoCloseable {

    private final int port;
    private final Path dataDirectory;
    private EmbeddedPostgres server;

    private OwnPostgres(int port, Path dataDirectory) {
        this.port = port;
        this.dataDirectory = dataDirectory;
    }

    static OwnPostgres start() throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        // Under java.io.tmpdir, which the build points at target/.
        OwnPostgres postgres = new OwnPostgres(port, Files.createTempDirectory("pipeline-pg"));
        postgres.up();
        return postgres;
    }

    /** Stops the server (sessions end, committed work stays), keeps it down for {@code downMs}, starts it again. */
    synchronized void restart(long downMs) throws IOException, InterruptedException {
        stop();
        Thread.sleep(downMs); // the length of the outage is the fault being injected, not a wait for something
        up();
    }

    /** Stops the server; {@link #startAgain} brings it back on the same port and data. */
    synchronized void stop() throws IOException {
        server.close();
        server = null;
    }

    synchronized void startAgain() throws IOException {
        up();
    }

    /**
     * Freezes the server without ending anything: SIGSTOP to the postmaster, then to every
     * process under it (backends, WAL writer, checkpointer...). Sessions stay open and their
     * sockets connected, but nothing answers, as with a hung host. The postmaster goes first so
     * it forks nothing new while its children are being stopped. {@link #thaw} undoes it.
     */
    synchronized void freeze() throws IOException, InterruptedException {
        long postmaster = postmasterPid();
        signal("STOP", List.of(postmaster));
        signal("STOP", ProcessHandle.of(postmaster).orElseThrow().descendants().map(ProcessHandle::pid).toList());
    }

    /** SIGCONT to the postmaster and every process under it; harmless when nothing is frozen. */
    synchronized void thaw() throws IOException, InterruptedException {
        long postmaster = postmasterPid();
        List<Long> pids = new ArrayList<>(ProcessHandle.of(postmaster).map(p -> p.descendants().map(ProcessHandle::pid)
                .toList()).orElse(List.of()));
        pids.add(postmaster);
        signal("CONT", pids);
    }

    /** The postmaster's pid, from the first line of postmaster.pid in the data directory. */
    private long postmasterPid() throws IOException {
        return Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim());
    }

    // Java cannot send SIGSTOP/SIGCONT; the shell's kill can, everywhere the tests run.
    private static void signal(String name, List<Long> pids) throws IOException, InterruptedException {
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("sh", "-c", "kill -" + name + " \"$@\"", "kill"));
        pids.forEach(pid -> command.add(Long.toString(pid)));
        Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(kill.getInputStream().readAllBytes());
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + pids + " failed: " + output);
        }
    }

    /** A new database with the engine installed; returns its JDBC URL (superuser, no password). */
    String createDatabase(String name) throws SQLException {
        return createDatabase(port, name);
    }

    /** Connections opened afresh on each call, so they work again after a restart. */
    DataSource dataSource(String database) {
        return dataSource(port, database);
    }

    /**
     * On the server at localhost:{@code port} that lets user postgres in without a password (this
     * one, or a container started so): a new database with the engine installed; returns its JDBC URL.
     */
    static String createDatabase(int port, String name) throws SQLException {
        return createDatabase(port, name, EmbeddedPg.engineScript());
    }

    /** A new database with the engine of {@code engineScript} installed (an older release, say); returns its JDBC URL. */
    String createDatabase(String name, String engineScript) throws SQLException {
        return createDatabase(port, name, engineScript);
    }

    private static String createDatabase(int port, String name, String engineScript) throws SQLException {
        try (Connection c = dataSource(port, "postgres").getConnection(); Statement s = c.createStatement()) {
            s.execute("create database " + name);
        }
        try (Connection c = dataSource(port, name).getConnection(); Statement s = c.createStatement()) {
            s.execute(engineScript);
        }
        return "jdbc:postgresql://localhost:" + port + "/" + name + "?user=postgres";
    }

    static DataSource dataSource(int port, String database) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {"localhost"});
        ds.setPortNumbers(new int[] {port});
        ds.setDatabaseName(database);
        ds.setUser("postgres");
        return ds;
    }

    private void up() throws IOException {
        server = EmbeddedPostgres.builder()
                .setPort(port)
                .setDataDirectory(dataDirectory.toFile())
                .setCleanDataDirectory(false) // initdb on the first start only
                .setServerConfig("fsync", "off")
                .setServerConfig("max_connections", "200")
                .start();
    }

    @Override
    public synchronized void close() throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}

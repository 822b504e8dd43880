/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** The PostgreSQL server a benchmark runs against, with the engine installed. */
final class BenchServer implements AutoCloseable {

    private final EmbeddedPostgres embedded;
    private final String jdbcUrl;

    private BenchServer(EmbeddedPostgres embedded, String jdbcUrl) {
        this.embedded = embedded;
        this.jdbcUrl = jdbcUrl;
    }

    static BenchServer start(String jdbcUrl) throws IOException, SQLException {
        return start(jdbcUrl, false);
    }

    /** With {@code logical}, the embedded server writes the WAL a logical decoder (Debezium) reads. */
    static BenchServer start(String jdbcUrl, boolean logical) throws IOException, SQLException {
        EmbeddedPostgres embedded = null;
        if (jdbcUrl == null) {
            // Durable commits, as in production: the embedded server's defaults turn them off,
            // which hides the commit's wait for the disk that every write path pays.
            // pg_stat_statements is loaded for profiling (it is not reset or read by the runs).
            embedded = EmbeddedPostgres.builder()
                    .setServerConfig("shared_buffers", "256MB")
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("full_page_writes", "on")
                    .setServerConfig("shared_preload_libraries", "pg_stat_statements")
                    .setServerConfig("pg_stat_statements.track", "all")
                    .setServerConfig("wal_level", logical ? "logical" : "replica")
                    .start();
            jdbcUrl = embedded.getJdbcUrl("postgres", "postgres");
        }
        BenchServer server = new BenchServer(embedded, jdbcUrl);
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute(engineScript());
            server.describe(c);
        }
        return server;
    }

    /**
     * Whether pg_stat_statements records the statements run inside functions too ({@code all}) or
     * only those clients send ({@code top}), for the sessions opened from now on, on the embedded
     * server (a server of one's own keeps its setting). Recording costs the server CPU per statement, which a function that runs many
     * pays many times a call: a cost measurement tracks {@code top}, as production does by default.
     */
    void trackNestedStatements(boolean nested) throws SQLException {
        if (embedded == null) {
            return;
        }
        // On the database, not the system: the server was started with the setting on its command
        // line, which outranks postgresql.auto.conf. Sessions opened from now on take it.
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("do $$ begin execute format('alter database %I set pg_stat_statements.track = %L', "
                    + "current_database(), '" + (nested ? "all" : "top") + "'); end $$");
        }
    }

    /** The server's JDBC URL, as given or of the embedded server (superuser, no password). */
    String jdbcUrl() {
        return jdbcUrl;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "reWriteBatchedInserts=true");
    }

    private void describe(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); var rs = s.executeQuery(
                "select current_setting('server_version'), pgque.version(), current_setting('shared_buffers'),"
                        + " current_setting('synchronous_commit'), current_setting('fsync'), current_setting('wal_level')")) {
            rs.next();
            System.out.printf("server: PostgreSQL %s (%s), engine %s, shared_buffers %s, synchronous_commit %s, "
                            + "fsync %s, wal_level %s; JVM %s; %d cores%n",
                    rs.getString(1), embedded != null ? "embedded" : "external", rs.getString(2), rs.getString(3),
                    rs.getString(4), rs.getString(5), rs.getString(6), System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors());
        }
    }

    private static String engineScript() throws IOException {
        try (InputStream in = BenchServer.class.getResourceAsStream("/io/pgque/client/pgque.sql")) {
            if (in == null) {
                throw new IllegalStateException("engine script not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() throws IOException {
        if (embedded != null) {
            embedded.close();
        }
    }
}

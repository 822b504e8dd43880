/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One real PostgreSQL server per test JVM (zonky embedded binaries), shared by every test class.
 * Each test class gets a database of its own from {@link #newDatabase(String)}, so classes never
 * see each other's queues, roles aside (roles are cluster-wide in PostgreSQL).
 *
 * <p>The major version follows the Maven property {@code pg.binaries.version} (default 17).
 */
public final class EmbeddedPg {

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres server;

    private EmbeddedPg() {
    }

    /** The shared server, started on first use and stopped when the JVM exits. */
    public static synchronized EmbeddedPostgres server() {
        if (server == null) {
            try {
                server = EmbeddedPostgres.builder()
                        .setServerConfig("max_connections", "200")
                        .setServerConfig("fsync", "off")
                        .setServerConfig("synchronous_commit", "off")
                        .setServerConfig("full_page_writes", "off")
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
            }
            EmbeddedPostgres started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (IOException ignored) {
                    // the JVM is going away; the data directory is under target/
                }
            }, "embedded-pg-stop"));
        }
        return server;
    }

    /** Creates an empty database whose name starts with {@code prefix}; returns its handle. */
    public static TestDatabase newDatabase(String prefix) {
        String name = (prefix + "_" + DATABASES.incrementAndGet()).toLowerCase().replaceAll("[^a-z0-9_]", "_");
        EmbeddedPostgres pg = server();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return new TestDatabase(pg, name);
    }

    /** The assembled engine install script from the classpath. */
    public static String engineScript() {
        try (var in = EmbeddedPg.class.getResourceAsStream("/io/pgque/client/pgque.sql")) {
            if (in == null) {
                throw new IllegalStateException("io/pgque/client/pgque.sql not on the classpath; run the build");
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A database on the shared server. */
    public static final class TestDatabase {
        private final EmbeddedPostgres pg;
        private final String name;

        TestDatabase(EmbeddedPostgres pg, String name) {
            this.pg = pg;
            this.name = name;
        }

        public String name() {
            return name;
        }

        /** Superuser access to this database. */
        public DataSource superuser() {
            return pg.getDatabase("postgres", name);
        }

        public String jdbcUrl() {
            return pg.getJdbcUrl("postgres", name);
        }

        public int port() {
            return pg.getPort();
        }

        /** A JDBC URL for another login role (created by the test) on this database. */
        public String jdbcUrl(String user) {
            return pg.getJdbcUrl(user, name);
        }

        public DataSource as(String user) {
            return pg.getDatabase(user, name);
        }

        /**
         * Runs the bundled install script as the superuser, the way {@code psql -f} would. Tests of
         * the Java installer use the client instead; this keeps engine tests independent of it.
         */
        public TestDatabase installEngine() {
            try (Connection c = superuser().getConnection(); Statement s = c.createStatement()) {
                s.execute(engineScript());
            } catch (SQLException e) {
                throw new IllegalStateException("engine install failed on " + name + ": " + e.getMessage(), e);
            }
            return this;
        }
    }
}

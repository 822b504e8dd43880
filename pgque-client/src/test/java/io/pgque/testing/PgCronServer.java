/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.testing;

import org.junit.jupiter.api.Assumptions;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL cluster of the system's PostgreSQL 15 with pg_cron loaded, for the tests of
 * ticking inside the database. The embedded server has no pg_cron, so this one comes from the
 * Debian packages {@code postgresql-15} and {@code postgresql-15-cron} ({@code .ci/run} installs
 * them). The cluster is initialised afresh, listens on a free port of localhost, keeps pg_cron's
 * jobs in database {@code postgres}, trusts local connections (pg_cron connects back to run a
 * job) and is stopped when the test is done.
 *
 * <p>initdb and postgres refuse to run as root: as root the cluster belongs to the {@code postgres}
 * system user and every server command runs through {@code runuser}; its directory is then under
 * {@code /tmp} (and removed afterwards), because the build directory may sit below a home
 * directory that user cannot enter. Otherwise the cluster lives under {@code target/}.
 */
public final class PgCronServer implements AutoCloseable {

    private static final Path BIN = Paths.get(System.getProperty("pgque.pgcron.bin", "/usr/lib/postgresql/15/bin"));
    private static final Path CRON_CONTROL = Paths.get(System.getProperty("pgque.pgcron.control",
            "/usr/share/postgresql/15/extension/pg_cron.control"));
    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));
    private static final String REQUIREMENT = "pgque.test.pgcron";
    private static final boolean REQUIRED = requirement();

    private final Path dataDir;
    private final int port;
    private boolean stopped;

    private PgCronServer(Path dataDir, int port) {
        this.dataDir = dataDir;
        this.port = port;
    }

    /**
     * Initialises and starts a new cluster. When the packages are missing, the calling test class
     * is skipped with one line saying what it needs, unless {@code -Dpgque.test.pgcron=required}
     * or the environment's {@code PGQUE_TEST_PGCRON=required} (which {@code .ci/run} sets) makes
     * their absence a failure.
     */
    public static PgCronServer start() {
        if (!Files.isExecutable(BIN.resolve("initdb")) || !Files.exists(CRON_CONTROL)) {
            String suite = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass().getSimpleName();
            String need = suite + " needs PostgreSQL 15 with pg_cron (" + BIN + "/initdb, " + CRON_CONTROL
                    + "): apt-get install -y postgresql-15 postgresql-15-cron, as .ci/run does";
            if (REQUIRED) {
                throw new IllegalStateException(need + " (required by -D" + REQUIREMENT + " or PGQUE_TEST_PGCRON)");
            }
            System.out.println("[skipped] " + need + "; -D" + REQUIREMENT + "=required or PGQUE_TEST_PGCRON=required makes this a failure");
            Assumptions.abort(need);
        }
        try {
            Path dir = ROOT ? Files.createTempDirectory(Paths.get("/tmp"), "pgque-pgcron-")
                    : Files.createDirectories(Paths.get("target")).toAbsolutePath().resolve("pgcron-" + System.nanoTime());
            Files.createDirectories(dir);
            if (ROOT) {
                run(List.of("chown", "postgres:postgres", dir.toString()), dir.getParent().resolve(dir.getFileName() + ".log"));
            }
            int port = freePort();
            PgCronServer server = new PgCronServer(dir, port);
            server.initAndStart();
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "pgcron-server-stop"));
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set up the pg_cron cluster", e);
        }
    }

    private void initAndStart() throws IOException {
        Path log = commandLog();
        run(asServerUser(List.of(BIN.resolve("initdb").toString(), "-D", dataDir.toString(), "-U", "postgres",
                "--auth=trust", "--no-locale", "-E", "UTF8")), log);
        String conf = String.join("\n",
                "",
                "port = " + port,
                "listen_addresses = 'localhost'",
                "unix_socket_directories = '" + dataDir + "'",
                "shared_preload_libraries = 'pg_cron'",
                "cron.database_name = 'postgres'",
                "fsync = off",
                "");
        // as root the file belongs to the postgres user; root may still append to it
        Files.writeString(dataDir.resolve("postgresql.conf"), conf, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        run(asServerUser(List.of(BIN.resolve("pg_ctl").toString(), "-D", dataDir.toString(),
                "-l", dataDir.resolve("server.log").toString(), "-w", "-t", "120", "start")), log);
    }

    /** Superuser access to database {@code postgres}, where pg_cron keeps its jobs. */
    public DataSource superuser() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {"localhost"});
        ds.setPortNumbers(new int[] {port});
        ds.setDatabaseName("postgres");
        ds.setUser("postgres");
        return ds;
    }

    /** Installs the bundled engine and creates the pg_cron extension in database {@code postgres}. */
    public PgCronServer installEngineAndPgCron() {
        try (Connection c = superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute(EmbeddedPg.engineScript());
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_cron");
        } catch (SQLException e) {
            throw new IllegalStateException("engine or pg_cron install failed: " + e.getMessage(), e);
        }
        return this;
    }

    /** The server's log so far (for failure messages). */
    public String serverLog() {
        try {
            return Files.readString(dataDir.resolve("server.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no server log: " + e.getMessage() + ")";
        }
    }

    @Override
    public synchronized void close() {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            run(asServerUser(List.of(BIN.resolve("pg_ctl").toString(), "-D", dataDir.toString(),
                    "-m", "fast", "-w", "-t", "60", "stop")), commandLog());
        } catch (RuntimeException | IOException e) {
            // the JVM may be exiting; the data directory is a throwaway
        }
        if (ROOT) {
            deleteTree(dataDir);
            deleteTree(commandLog());
            deleteTree(dataDir.getParent().resolve(dataDir.getFileName() + ".log"));
        }
    }

    private static void deleteTree(Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort: a leftover directory in /tmp harms nothing
        }
    }

    private Path commandLog() {
        return dataDir.getParent().resolve(dataDir.getFileName() + "-commands.log");
    }

    private static List<String> asServerUser(List<String> command) {
        if (!ROOT) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    private static void run(List<String> command, Path log) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out: " + command);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + command, e);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("failed (exit " + p.exitValue() + "): " + command + "\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
    }

    private static boolean requirement() {
        String value = System.getProperty(REQUIREMENT, "");
        if (value.isEmpty()) {
            value = System.getenv().getOrDefault("PGQUE_TEST_PGCRON", "");
        }
        return switch (value) {
            case "", "auto" -> false;
            case "required" -> true;
            default -> throw new IllegalArgumentException(REQUIREMENT + " must be auto or required, not: " + value);
        };
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}

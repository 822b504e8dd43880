/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs or upgrades the engine bundled with this client (classpath resource
 * {@value #SCRIPT_RESOURCE}) by running its install script, the same script one would run with
 * {@code psql -f}. The script is one transaction and safe to re-run: it upgrades in place, and it
 * refuses (with {@link InstallRefusedException}, changing nothing) to downgrade or to overwrite a
 * {@code pgque} schema it did not create.
 *
 * <p>The connecting role needs the rights to create the schema, roles and functions (typically
 * the database owner or a superuser); the role that installs owns the engine's functions.
 * The check-then-install methods serialise concurrent installers with a session-level advisory
 * lock, so connect directly or through a session-mode pool, not a transaction-mode pooler.
 */
public final class PgQueInstaller {

    /** Where the assembled engine script is on the classpath. */
    public static final String SCRIPT_RESOURCE = "io/pgque/client/pgque.sql";

    private static final Logger LOG = LoggerFactory.getLogger(PgQueInstaller.class);
    /** Advisory lock key that serialises installers; arbitrary but fixed ("pgque" in ASCII). */
    private static final long INSTALL_LOCK_KEY = 0x7067717565L;
    /** How long an installer waits for another to finish. */
    private static final Duration INSTALL_LOCK_WAIT = Duration.ofSeconds(60);
    /** The script gives up waiting for a lock after its lock_timeout; it is run at most this often. */
    private static final int SCRIPT_ATTEMPTS = 5;
    private static final String LOCK_TIMEOUT = "55P03";

    private final DataSource dataSource;

    /**
     * An installer connecting through {@code dataSource}, whose role must be allowed to create
     * the schema, roles and functions.
     */
    public PgQueInstaller(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /** The text of the bundled install script. */
    public static String bundledScript() {
        try (InputStream in = PgQueInstaller.class.getClassLoader().getResourceAsStream(SCRIPT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(SCRIPT_RESOURCE + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + SCRIPT_RESOURCE, e);
        }
    }

    /** The engine version of the bundled script, from its {@code -- pgque-engine-version:} line. */
    public static String bundledVersion() {
        return EngineVersion.fromScript(bundledScript()).orElseThrow(() -> new IllegalStateException(
                SCRIPT_RESOURCE + " has no '-- pgque-engine-version: X.Y.Z' line"));
    }

    /**
     * The version of the engine installed in the database, or empty when there is none (no
     * {@code pgque.version()} function, for example no {@code pgque} schema at all).
     */
    public Optional<String> installedVersion() {
        return withConnection("read installed engine version", PgQueInstaller::installedVersion);
    }

    /**
     * Runs the bundled script unconditionally: installs, upgrades, or re-applies the same version.
     *
     * @return the version installed afterwards
     * @throws InstallRefusedException if the script refuses (foreign schema, downgrade)
     */
    public String install() {
        return withConnection("install engine " + bundledVersion(), c -> {
            runScript(c);
            return installedVersion(c).orElseThrow(() -> new SQLException(
                    "install script ran but pgque.version() is missing"));
        });
    }

    /**
     * Installs the bundled engine only if no engine is installed.
     *
     * @return true if it installed, false if an engine (of any version) was already there
     */
    public boolean installIfMissing() {
        return underInstallLock("install engine if missing", c -> {
            if (installedVersion(c).isPresent()) {
                return false;
            }
            runScript(c);
            return true;
        });
    }

    /**
     * Installs the bundled engine if none is installed, or upgrades one that is older than the
     * bundled version; leaves an equal or newer engine alone.
     *
     * @return true if the script ran
     */
    public boolean installOrUpgrade() {
        return underInstallLock("install or upgrade engine", c -> {
            Optional<String> installed = installedVersion(c);
            if (installed.isPresent() && EngineVersion.compare(installed.get(), bundledVersion()) >= 0) {
                LOG.debug("pgque engine {} is installed; bundled {} is not newer", installed.get(), bundledVersion());
                return false;
            }
            runScript(c);
            return true;
        });
    }

    /** The version of the engine installed where {@code c} connects, or empty when there is none. */
    static Optional<String> installedVersion(Connection c) throws SQLException {
        boolean present = Sql.one(c, "select pg_catalog.to_regprocedure('pgque.version()') is not null",
                rs -> rs.getBoolean(1));
        if (!present) {
            return Optional.empty();
        }
        return Optional.ofNullable(Sql.one(c, "select pgque.version()", rs -> rs.getString(1)));
    }

    /**
     * Runs the script, again when it gave up waiting for a lock (SQLSTATE 55P03, its own
     * lock_timeout): it changed nothing then, and the client holding the lock is usually done a
     * moment later.
     */
    private static void runScript(Connection c) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                runScriptOnce(c);
                return;
            } catch (SQLException e) {
                if (!LOCK_TIMEOUT.equals(e.getSQLState()) || attempt >= SCRIPT_ATTEMPTS) {
                    throw e;
                }
                LOG.warn("pgque engine install script gave up waiting for a lock (attempt {} of {}), having changed "
                        + "nothing; running it again: {}", attempt, SCRIPT_ATTEMPTS, e.getMessage());
            }
        }
    }

    private static void runScriptOnce(Connection c) throws SQLException {
        String version = bundledVersion();
        LOG.info("running pgque engine install script {}", version);
        try (Statement s = c.createStatement()) {
            s.execute(bundledScript());
            for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                LOG.debug("install script: {}", w.getMessage());
            }
        } catch (SQLException e) {
            // the script's own transaction is aborted; end it before the connection goes back
            try (Statement s = c.createStatement()) {
                s.execute("rollback");
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e;
        }
    }

    /**
     * Serialises this process's check-then-install with other installers'. The lock is an
     * advisory lock, which any login could take too: its wait is bounded, so a session holding it
     * stalls no installer for ever.
     */
    private <T> T underInstallLock(String what, SqlWork<T> work) {
        return withConnection(what, c -> {
            long deadline = System.nanoTime() + INSTALL_LOCK_WAIT.toNanos();
            while (!Sql.one(c, "select pg_catalog.pg_try_advisory_lock(?)", rs -> rs.getBoolean(1), INSTALL_LOCK_KEY)) {
                if (System.nanoTime() > deadline) {
                    throw new SQLException("another session has held the pgque installer lock (advisory lock "
                            + INSTALL_LOCK_KEY + ") for over " + INSTALL_LOCK_WAIT.toSeconds() + " s; find it in "
                            + "pg_locks (locktype 'advisory') and end it, or run the install script directly", LOCK_TIMEOUT);
                }
                pauseBeforeRetry();
            }
            T result;
            try {
                result = work.run(c);
            } catch (SQLException | RuntimeException e) {
                try {
                    Sql.one(c, "select pg_catalog.pg_advisory_unlock(?)", rs -> null, INSTALL_LOCK_KEY);
                } catch (SQLException unlockFailure) {
                    e.addSuppressed(unlockFailure);
                }
                throw e;
            }
            Sql.one(c, "select pg_catalog.pg_advisory_unlock(?)", rs -> null, INSTALL_LOCK_KEY);
            return result;
        });
    }

    private static void pauseBeforeRetry() throws SQLException {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for the pgque installer lock", e);
        }
    }

    /** The script manages its own transaction, so the connection runs in auto-commit mode. */
    private <T> T withConnection(String what, SqlWork<T> work) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw SqlErrors.map(what, e);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.probe;

import io.pgque.client.PgQue;
import io.pgque.client.PgQueException;
import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import org.apache.kafka.common.config.ConfigException;
import org.postgresql.Driver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * One short-lived connection for a connector's {@code validate()}: can we log in, is the engine
 * there, may this role do what the connector will do. Every blocking step is bounded by the
 * connection timeout, so a validation request never hangs on an unreachable or stuck server.
 *
 * <p>Not a pool on purpose: validation runs once per REST call, and a pool would keep
 * connecting in the background after the answer was sent.
 */
public final class DatabaseProbe implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DatabaseProbe.class);

    /**
     * Beyond connection.timeout.ms, so that the driver's own timeout (connect, login, socket)
     * ends a stuck step first and its precise message reaches the user.
     */
    private static final long SLACK_MS = 2_000;

    /** What a connector asks of the database while validating; may fail as the probe's queries do. */
    @FunctionalInterface
    public interface Check<T> {
        T run(DatabaseProbe probe) throws SQLException;
    }

    private final Connection connection;

    private DatabaseProbe(Connection connection) {
        this.connection = connection;
    }

    /**
     * Opens a probe with {@code settings} and runs {@code check} on it, in a thread of its own
     * and for at most connection.timeout.ms (plus a little): a validate call must answer even
     * when the database does not. When no server answers at all ({@link ConnectionFailure.Kind#UNREACHABLE})
     * the checks are skipped with a warning and {@code whenUnreachable} is returned: a connector
     * deployed during an outage is accepted and its tasks wait for the database. A login refused
     * for a reason in the configuration (an unknown host, a wrong password or user, a database
     * that does not exist, TLS) comes back through {@code problem} filed under the key to change;
     * every other failure (a failed query, a bug) under connection.url. Both connectors validate
     * this way.
     *
     * @param what names the configuration in the warning, e.g. "the sink's configuration"
     */
    public static <T> T check(ConnectionSettings settings, String applicationName, String what, Check<T> check,
                              Function<ConnectionFailure, T> problem, T whenUnreachable) {
        return check(settings, applicationName, check, problem, reason -> {
            log.warn("Skipped the database checks of {}: {}. Accepting the configuration; the tasks wait for the "
                    + "database. Check the host, port and firewall if it should be up.", what, reason);
            return whenUnreachable;
        });
    }

    /**
     * What a task does when it starts: logs in once, within connection.timeout.ms. A login refused
     * for a reason in the configuration fails the start, naming the key, so that Connect shows
     * the task FAILED with that message instead of a task that retries for ever; a server that
     * does not answer (yet), or any other failure, only gets a warning: the task starts, and
     * retries the database as it works.
     *
     * @throws ConfigException when the configuration keeps the task from ever logging in
     */
    public static void requireLogin(ConnectionSettings settings, String applicationName) {
        Optional<ConnectionFailure> failure = check(settings, applicationName, probe -> Optional.empty(),
                Optional::of, reason -> Optional.of(new ConnectionFailure(ConnectionFailure.Kind.UNREACHABLE,
                        ConnectionConfigDef.URL, reason)));
        if (failure.isEmpty()) {
            return;
        }
        if (failure.get().isConfiguration()) {
            throw new ConfigException(failure.get().key() + ": " + failure.get().message());
        }
        log.warn("Task {} cannot reach the database at start ({}); it starts, and waits for the database as it works",
                applicationName, failure.get().message());
    }

    private static <T> T check(ConnectionSettings settings, String applicationName, Check<T> check,
                               Function<ConnectionFailure, T> problem, Function<String, T> unreachable) {
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, applicationName);
            thread.setDaemon(true);
            return thread;
        });
        try {
            return executor.submit(() -> openAndRun(settings, applicationName, check, problem, unreachable))
                    .get(settings.timeoutMs() + SLACK_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return unreachable.apply("no answer from " + settings.url() + " within " + settings.timeoutMs() + " ms ("
                    + ConnectionConfigDef.TIMEOUT_MS + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return problem.apply(other("Interrupted while checking the database"));
        } catch (ExecutionException e) {
            log.warn("Checking the database failed unexpectedly", e.getCause());
            return problem.apply(other("Checking the database failed: " + e.getCause()));
        } finally {
            executor.shutdownNow();
        }
    }

    private static <T> T openAndRun(ConnectionSettings settings, String applicationName, Check<T> check,
                                    Function<ConnectionFailure, T> problem, Function<String, T> unreachable) {
        DatabaseProbe probe;
        try {
            probe = open(settings, applicationName);
        } catch (SQLException e) {
            ConnectionFailure failure = ConnectionFailure.classify(e, settings);
            String user = settings.user().isEmpty() ? "" : " as user '" + settings.user() + "'";
            if (failure.isUnreachable()) {
                return unreachable.apply("cannot connect to " + settings.url() + user + ": " + failure.message());
            }
            return problem.apply(failure.isConfiguration() ? failure
                    : other("Cannot connect to " + settings.url() + user + ": " + failure.message()));
        }
        try (probe) {
            return check.run(probe);
        } catch (SQLException e) {
            return problem.apply(other("Checking the database failed: " + describe(e, settings)));
        }
    }

    private static ConnectionFailure other(String message) {
        return new ConnectionFailure(ConnectionFailure.Kind.OTHER, ConnectionConfigDef.URL, message);
    }

    /**
     * Logs in with {@code settings}.
     *
     * @throws SQLException when the server cannot be reached or refuses the login; its message
     *         comes from the driver and never contains the password (see {@link #describe})
     */
    public static DatabaseProbe open(ConnectionSettings settings, String applicationName) throws SQLException {
        Properties props = settings.tlsDriverProperties();
        if (!settings.user().isEmpty()) {
            props.setProperty("user", settings.user());
        }
        if (settings.password() != null) {
            props.setProperty("password", settings.password().value());
        }
        String seconds = Long.toString((settings.timeoutMs() + 999) / 1000);
        props.setProperty("ApplicationName", applicationName);
        props.setProperty("connectTimeout", seconds);
        props.setProperty("loginTimeout", seconds);
        props.setProperty("socketTimeout", seconds);
        // The driver class directly, not DriverManager: inside Connect's plugin class loader
        // DriverManager may not see a driver that only the plugin's jars contain.
        Connection connection = new Driver().connect(settings.url(), props);
        if (connection == null) {
            throw new SQLException("the PostgreSQL driver does not accept the URL " + settings.url(), "08001");
        }
        return new DatabaseProbe(connection);
    }

    /**
     * Why {@code e} happened, in words fit for an error message: the driver's message with the
     * password (and TLS key password) replaced, should a driver or server ever echo it.
     */
    public static String describe(SQLException e, ConnectionSettings settings) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        message = mask(message, settings.password() == null ? null : settings.password().value());
        String keyPassword = settings.tlsDriverProperties().getProperty("sslpassword");
        return mask(message, keyPassword);
    }

    private static String mask(String text, String secret) {
        return secret == null || secret.isEmpty() ? text : text.replace(secret, "[hidden]");
    }

    /** The role the probe logged in as. */
    public String currentUser() throws SQLException {
        return text("select current_user");
    }

    /** The database the probe is connected to. */
    public String currentDatabase() throws SQLException {
        return text("select current_database()");
    }

    /** Whether the engine is installed; needs no privilege on its schema. */
    public boolean engineInstalled() throws SQLException {
        // From the catalog: to_regprocedure would fail for a role without USAGE on the schema.
        return bool("select exists (select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace"
                + " where n.nspname = 'pgque' and p.proname = 'version')");
    }

    /**
     * Whether the current role may call the function with this exact signature, e.g.
     * {@code pgque.create_queue(text)}: it exists, the role may execute it and may use its
     * schema. False when no such function exists.
     */
    public boolean canExecute(String signature) throws SQLException {
        int dot = signature.indexOf('.');
        if (dot <= 0) {
            throw new IllegalArgumentException("a schema-qualified signature is needed: " + signature);
        }
        // The schema first: resolving a name in a schema the role may not use is an error, not NULL.
        if (!bool("select coalesce((select has_schema_privilege(current_user, oid, 'USAGE') from pg_namespace"
                + " where nspname = ?), false)", signature.substring(0, dot))) {
            return false;
        }
        return bool("select to_regprocedure(?) is not null"
                + " and has_function_privilege(current_user, to_regprocedure(?), 'EXECUTE')", signature, signature);
    }

    /** Whether the current role may create schemas in this database (what installing needs first). */
    public boolean canCreateSchema() throws SQLException {
        return bool("select has_database_privilege(current_user, current_database(), 'CREATE')");
    }

    /** Whether the current role may create roles (CREATEROLE, or superuser). */
    public boolean canCreateRoles() throws SQLException {
        return bool("select rolcreaterole or rolsuper from pg_roles where rolname = current_user");
    }

    /** Whether every one of {@code roles} exists in the cluster. */
    public boolean rolesExist(List<String> roles) throws SQLException {
        return bool("select count(*) = ? from pg_roles where rolname = any(?)", roles.size(),
                connection.createArrayOf("text", roles.toArray()));
    }

    /**
     * Why the current role could not install the engine in this database, or empty when it could:
     * installing creates the pgque schema (CREATE on the database) and, where they do not exist
     * yet in the cluster, the engine's roles (CREATEROLE).
     *
     * @param fix what the user may do instead, appended to the message
     */
    public Optional<String> installProblem(String fix) throws SQLException {
        boolean schema = canCreateSchema();
        boolean roles = rolesExist(ENGINE_ROLES) || canCreateRoles();
        if (schema && roles) {
            return Optional.empty();
        }
        List<String> missing = new ArrayList<>();
        if (!schema) {
            missing.add("CREATE on database '" + currentDatabase() + "' (for the pgque schema)");
        }
        if (!roles) {
            missing.add("CREATEROLE (for the roles " + String.join(", ", ENGINE_ROLES) + ", which do not exist yet)");
        }
        return Optional.of("The PgQue engine is not installed in database '" + currentDatabase()
                + "', and user '" + currentUser() + "' may not install it: installing needs "
                + String.join(" and ", missing) + ". Install it as the database owner with CREATEROLE (psql -f "
                + "pgque.sql), grant the user what is missing, or " + fix);
    }

    /** The roles the engine's installer creates, under their default names (prefix pgque). */
    public static final List<String> ENGINE_ROLES = List.of("pgque_reader", "pgque_writer", "pgque_ticker", "pgque_admin");

    /** Whether the current role is a member of {@code role} (with its rights); false when there is no such role. */
    public boolean hasRole(String role) throws SQLException {
        return bool("select coalesce((select pg_has_role(oid, 'USAGE') from pg_roles where rolname = ?), false)", role);
    }

    /** Whether the current role is a superuser. */
    public boolean superuser() throws SQLException {
        return bool("select rolsuper from pg_roles where rolname = current_user");
    }

    /** Whether the queue exists; needs {@code pgque.get_queue_info(text)}, which writers and readers have. */
    public boolean queueExists(String queue) throws SQLException {
        try {
            return PgQue.using(connection).queues().info(queue).isPresent();
        } catch (PgQueException e) {
            // the probe's callers read the database's own error (its SQLSTATE and words)
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw e;
        }
    }

    /**
     * The partitioned consumers of {@code queue}, but {@code except}, whose slots no live lease
     * has held for longer than {@code idle}: each consumer's name and how long its slots have been
     * unleased (the most recently held slot's figure). Nobody reads them, and they hold back the
     * queue's table rotation. Empty on an engine without {@code pgque.slot_stats()}.
     */
    public Map<String, Duration> unleasedConsumers(String queue, String except, Duration idle) throws SQLException {
        Map<String, Duration> consumers = new LinkedHashMap<>();
        if (!canExecute("pgque.slot_stats()")) {
            return consumers;
        }
        try (PreparedStatement ps = connection.prepareStatement("""
                select consumer_name, extract(epoch from min(unleased_for))::float8
                  from pgque.slot_stats()
                 where queue_name = ? and consumer_name <> ? and slot_set <> 'new'
                 group by consumer_name
                having bool_and(not lease_held) and min(unleased_for) > make_interval(secs => ?)
                 order by consumer_name""")) {
            ps.setString(1, queue);
            ps.setString(2, except);
            ps.setDouble(3, idle.toMillis() / 1000.0);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    consumers.put(rs.getString(1), Duration.ofMillis(Math.round(rs.getDouble(2) * 1000)));
                }
            }
        }
        return consumers;
    }

    private boolean bool(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private String text(String sql) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // nothing was written; the server drops the session either way
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code connection.*} keys both connectors accept: where the database is, who to log in as,
 * how big the pool is, how hard to retry, how long any database call may wait, and the TLS
 * settings handed to the JDBC driver.
 */
public final class ConnectionConfigDef {

    public static final String GROUP = "Connection";
    public static final String TLS_GROUP = "Connection TLS";

    public static final String URL = "connection.url";
    public static final String USER = "connection.user";
    public static final String PASSWORD = "connection.password";
    public static final String POOL_SIZE = "connection.pool.size";
    public static final String ATTEMPTS = "connection.attempts";
    public static final String BACKOFF_MS = "connection.backoff.ms";
    public static final String TIMEOUT_MS = "connection.timeout.ms";
    public static final String SOCKET_TIMEOUT_MS = "connection.socket.timeout.ms";
    public static final String STATEMENT_TIMEOUT_MS = "connection.statement.timeout.ms";
    public static final String LOCK_TIMEOUT_MS = "connection.lock.timeout.ms";
    public static final String MAX_OUTAGE_MS = "connection.max.outage.ms";

    public static final String SSL_MODE = "connection.ssl.mode";
    public static final String SSL_ROOT_CERT = "connection.ssl.root.cert";
    public static final String SSL_CERT = "connection.ssl.cert";
    public static final String SSL_KEY = "connection.ssl.key";
    public static final String SSL_KEY_PASSWORD = "connection.ssl.key.password";

    public static final int POOL_SIZE_DEFAULT = 3;
    public static final int ATTEMPTS_DEFAULT = 3;
    public static final long BACKOFF_MS_DEFAULT = 2_000L;
    public static final long TIMEOUT_MS_DEFAULT = 10_000L;
    public static final long SOCKET_TIMEOUT_MS_DEFAULT = 45_000L;
    public static final long STATEMENT_TIMEOUT_MS_DEFAULT = 30_000L;
    public static final long LOCK_TIMEOUT_MS_DEFAULT = 10_000L;
    /** No bound: a task waits for its database as long as it takes. */
    public static final long MAX_OUTAGE_MS_DEFAULT = 0L;
    /** A week: the longest bound that still means something. */
    public static final long MAX_OUTAGE_MS_MAX = 7L * 24 * 3_600_000L;
    /** An hour: beyond that a bound protects nothing a connector cares about. */
    public static final long TIMEOUT_MS_MAX = 3_600_000L;
    /**
     * How much longer than the statement timeout the socket timeout must be: time for the
     * server's cancellation to reach the client before the client gives up on the connection.
     */
    public static final long SOCKET_OVER_STATEMENT_MS = 1_000L;
    public static final SslMode SSL_MODE_DEFAULT = SslMode.PREFER;

    private ConnectionConfigDef() {
    }

    /** Adds the connection keys to {@code def} and returns it. */
    public static ConfigDef addTo(ConfigDef def) {
        int order = 0;
        def.define(URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new JdbcUrlValidator(), Importance.HIGH,
                "JDBC URL of the PostgreSQL database, e.g. jdbc:postgresql://db.example:5432/app. "
                        + "It must not contain a password; use " + PASSWORD + ".",
                GROUP, ++order, Width.LONG, "JDBC URL");
        def.define(USER, Type.STRING, "", Importance.HIGH,
                "Database user. Empty leaves it to the URL's user parameter; a URL whose user parameter names "
                        + "another role is refused, since the driver would log in as the URL's.",
                GROUP, ++order, Width.MEDIUM, "User");
        def.define(PASSWORD, Type.PASSWORD, null, Importance.HIGH,
                "Database password. Kept out of logs and error messages; Connect's REST API returns a connector's "
                        + "config as it was sent, so give it through a config provider (${file:...}, ${env:...}).",
                GROUP, ++order, Width.MEDIUM, "Password");
        def.define(POOL_SIZE, Type.INT, POOL_SIZE_DEFAULT, Range.between(1, 64), Importance.MEDIUM,
                "Maximum number of database connections each task keeps open.",
                GROUP, ++order, Width.SHORT, "Pool size");
        def.define(ATTEMPTS, Type.INT, ATTEMPTS_DEFAULT, Range.between(1, 1_000), Importance.MEDIUM,
                "How many times in a row a task tries to get a working connection, " + BACKOFF_MS + " apart, "
                        + "before it reports a retriable failure to the worker, which calls the task again: a sink "
                        + "task within one put (its records are then delivered again), a source task within one "
                        + "poll.",
                GROUP, ++order, Width.SHORT, "Connection attempts");
        def.define(BACKOFF_MS, Type.LONG, BACKOFF_MS_DEFAULT, Range.between(0L, 300_000L), Importance.LOW,
                "Wait between two connection attempts, in milliseconds.",
                GROUP, ++order, Width.SHORT, "Connection backoff (ms)");
        def.define(TIMEOUT_MS, Type.LONG, TIMEOUT_MS_DEFAULT, Range.between(250L, 600_000L), Importance.LOW,
                "How long one attempt may take to open a connection (TCP connect and login, each) or to "
                        + "get one from the pool, in milliseconds.",
                GROUP, ++order, Width.SHORT, "Connection timeout (ms)");
        def.define(SOCKET_TIMEOUT_MS, Type.LONG, SOCKET_TIMEOUT_MS_DEFAULT, Range.between(1_000L, TIMEOUT_MS_MAX),
                Importance.LOW,
                "How long the client waits for the server to answer on an open connection, in milliseconds "
                        + "(driver property socketTimeout, whole seconds, rounded up); then the call fails, the "
                        + "connection is dropped and the task retries. The bound that still holds when the server "
                        + "hangs (a frozen host, a network partition). Must exceed " + STATEMENT_TIMEOUT_MS
                        + " by at least " + SOCKET_OVER_STATEMENT_MS + " ms, so that a slow statement is cancelled "
                        + "by the server (the connection survives) before the client gives up on the connection. "
                        + "Waits for queue notifications are not affected.",
                GROUP, ++order, Width.SHORT, "Socket timeout (ms)");
        def.define(STATEMENT_TIMEOUT_MS, Type.LONG, STATEMENT_TIMEOUT_MS_DEFAULT, Range.between(0L, TIMEOUT_MS_MAX),
                Importance.LOW,
                "The server cancels any statement of the connector's sessions that runs longer than this, in "
                        + "milliseconds (PostgreSQL's statement_timeout, set on each pooled connection); the task "
                        + "retries. 0 leaves the server's own setting in force.",
                GROUP, ++order, Width.SHORT, "Statement timeout (ms)");
        def.define(LOCK_TIMEOUT_MS, Type.LONG, LOCK_TIMEOUT_MS_DEFAULT, Range.between(0L, TIMEOUT_MS_MAX),
                Importance.LOW,
                "The server gives up on a lock the connector's sessions wait for longer than this, in "
                        + "milliseconds (PostgreSQL's lock_timeout), e.g. behind a long transaction of another "
                        + "client or a DDL statement; the task retries. 0 leaves the server's own setting in force.",
                GROUP, ++order, Width.SHORT, "Lock timeout (ms)");
        def.define(MAX_OUTAGE_MS, Type.LONG, MAX_OUTAGE_MS_DEFAULT, Range.between(0L, MAX_OUTAGE_MS_MAX),
                Importance.MEDIUM,
                "How long a task may go without a working connection to the database, in milliseconds, before it "
                        + "fails with the last error, so that Connect's status (and restart tooling watching it) "
                        + "shows the outage. It counts from the first failure after the last success (a refused "
                        + "login, a broken connection, no connection within " + TIMEOUT_MS + "). 0 (the default): "
                        + "no bound, the task retries until the database is back.",
                GROUP, ++order, Width.SHORT, "Max outage (ms)");

        int tls = 0;
        def.define(SSL_MODE, Type.STRING, SslMode.CHOICE.label(SSL_MODE_DEFAULT), SslMode.CHOICE.validator(),
                Importance.MEDIUM,
                SslMode.CHOICE.document("TLS mode, as libpq's sslmode; passed to the driver as sslmode. "
                        + "An sslmode parameter in the URL takes precedence."),
                TLS_GROUP, ++tls, Width.SHORT, "TLS mode", SslMode.CHOICE.recommender());
        def.define(SSL_ROOT_CERT, Type.STRING, "", Importance.LOW,
                "File with the CA certificate(s) that verify the server (driver property sslrootcert). "
                        + "Empty: the driver's default.",
                TLS_GROUP, ++tls, Width.LONG, "TLS root certificate");
        def.define(SSL_CERT, Type.STRING, "", Importance.LOW,
                "Client certificate file for certificate authentication (driver property sslcert).",
                TLS_GROUP, ++tls, Width.LONG, "TLS client certificate");
        def.define(SSL_KEY, Type.STRING, "", Importance.LOW,
                "Client private key file (driver property sslkey).",
                TLS_GROUP, ++tls, Width.LONG, "TLS client key");
        def.define(SSL_KEY_PASSWORD, Type.PASSWORD, null, Importance.LOW,
                "Password of the client private key (driver property sslpassword). Kept out of logs.",
                TLS_GROUP, ++tls, Width.MEDIUM, "TLS client key password");
        return def;
    }

    /**
     * Rules between connection keys that a per-key validator cannot see, as key → message;
     * empty when they hold. Keys missing from {@code parsed} (e.g. because they failed their own
     * validation) are not judged.
     *
     * @param parsed key → value as {@code ConfigDef} parses them
     */
    public static Map<String, String> problems(Map<String, ?> parsed) {
        return problems(parsed, Set.of());
    }

    /**
     * As {@link #problems(Map)}, skipping each rule that involves a key of {@code invalid}: the
     * user sees the key's own error, not its echoes.
     */
    public static Map<String, String> problems(Map<String, ?> parsed, Set<String> invalid) {
        Map<String, String> problems = new LinkedHashMap<>();
        if (!invalid.contains(SOCKET_TIMEOUT_MS) && !invalid.contains(STATEMENT_TIMEOUT_MS)
                && parsed.get(SOCKET_TIMEOUT_MS) instanceof Long socket && parsed.get(STATEMENT_TIMEOUT_MS) instanceof Long statement
                && statement > 0 && socket < statement + SOCKET_OVER_STATEMENT_MS) {
            problems.put(SOCKET_TIMEOUT_MS, SOCKET_TIMEOUT_MS + "=" + socket + " must be at least "
                    + SOCKET_OVER_STATEMENT_MS + " ms more than " + STATEMENT_TIMEOUT_MS + "=" + statement
                    + ", so that the server cancels a slow statement before the client drops the connection: "
                    + "raise it to " + (statement + SOCKET_OVER_STATEMENT_MS) + " or more (at most " + TIMEOUT_MS_MAX
                    + "), or lower " + STATEMENT_TIMEOUT_MS);
        }
        if (!invalid.contains(URL) && !invalid.contains(USER)
                && parsed.get(URL) instanceof String url && parsed.get(USER) instanceof String user) {
            String problem = JdbcUrlValidator.userConflict(url.trim(), user.trim());
            if (problem != null) {
                problems.put(USER, problem);
            }
        }
        return problems;
    }
}

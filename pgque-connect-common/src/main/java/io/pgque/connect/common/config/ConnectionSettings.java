/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.types.Password;

import java.util.Properties;

/**
 * The parsed {@code connection.*} keys, as one immutable value that can be handed to the pool
 * factory. Secrets stay wrapped in {@link Password} until the moment the driver needs them.
 */
public final class ConnectionSettings {

    private final String url;
    private final String user;
    private final Password password;
    private final int poolSize;
    private final int attempts;
    private final long backoffMs;
    private final long timeoutMs;
    private final long socketTimeoutMs;
    private final long statementTimeoutMs;
    private final long lockTimeoutMs;
    private final long maxOutageMs;
    private final SslMode sslMode;
    private final String sslRootCert;
    private final String sslCert;
    private final String sslKey;
    private final Password sslKeyPassword;

    private ConnectionSettings(AbstractConfig config) {
        this.url = config.getString(ConnectionConfigDef.URL).trim();
        this.user = config.getString(ConnectionConfigDef.USER).trim();
        this.password = config.getPassword(ConnectionConfigDef.PASSWORD);
        this.poolSize = config.getInt(ConnectionConfigDef.POOL_SIZE);
        this.attempts = config.getInt(ConnectionConfigDef.ATTEMPTS);
        this.backoffMs = config.getLong(ConnectionConfigDef.BACKOFF_MS);
        this.timeoutMs = config.getLong(ConnectionConfigDef.TIMEOUT_MS);
        this.socketTimeoutMs = config.getLong(ConnectionConfigDef.SOCKET_TIMEOUT_MS);
        this.statementTimeoutMs = config.getLong(ConnectionConfigDef.STATEMENT_TIMEOUT_MS);
        this.lockTimeoutMs = config.getLong(ConnectionConfigDef.LOCK_TIMEOUT_MS);
        this.maxOutageMs = config.getLong(ConnectionConfigDef.MAX_OUTAGE_MS);
        this.sslMode = SslMode.CHOICE.parse(ConnectionConfigDef.SSL_MODE, config.getString(ConnectionConfigDef.SSL_MODE));
        this.sslRootCert = config.getString(ConnectionConfigDef.SSL_ROOT_CERT).trim();
        this.sslCert = config.getString(ConnectionConfigDef.SSL_CERT).trim();
        this.sslKey = config.getString(ConnectionConfigDef.SSL_KEY).trim();
        this.sslKeyPassword = config.getPassword(ConnectionConfigDef.SSL_KEY_PASSWORD);
    }

    /** Reads the keys that {@link ConnectionConfigDef#addTo} defined from an already validated config. */
    public static ConnectionSettings from(AbstractConfig config) {
        return new ConnectionSettings(config);
    }

    public String url() {
        return url;
    }

    /** The user, or empty when the URL names it. */
    public String user() {
        return user;
    }

    /** The password, or null when none was given (certificate or trust authentication). */
    public Password password() {
        return password;
    }

    public int poolSize() {
        return poolSize;
    }

    public int attempts() {
        return attempts;
    }

    public long backoffMs() {
        return backoffMs;
    }

    public long timeoutMs() {
        return timeoutMs;
    }

    /** How long a call may wait for the server's answer on an open connection. */
    public long socketTimeoutMs() {
        return socketTimeoutMs;
    }

    /** The sessions' statement_timeout; 0 leaves the server's setting. */
    public long statementTimeoutMs() {
        return statementTimeoutMs;
    }

    /** The sessions' lock_timeout; 0 leaves the server's setting. */
    public long lockTimeoutMs() {
        return lockTimeoutMs;
    }

    /** How long a task may go without a working connection before it fails; 0: no bound. */
    public long maxOutageMs() {
        return maxOutageMs;
    }

    public SslMode sslMode() {
        return sslMode;
    }

    /**
     * The TLS settings as PostgreSQL JDBC driver properties, only those that were given. The key
     * password is included, so the result must never be logged.
     */
    public Properties tlsDriverProperties() {
        Properties properties = new Properties();
        properties.setProperty("sslmode", sslMode.driverValue());
        putIfGiven(properties, "sslrootcert", sslRootCert);
        putIfGiven(properties, "sslcert", sslCert);
        putIfGiven(properties, "sslkey", sslKey);
        if (sslKeyPassword != null) {
            properties.setProperty("sslpassword", sslKeyPassword.value());
        }
        return properties;
    }

    private static void putIfGiven(Properties properties, String name, String value) {
        if (!value.isEmpty()) {
            properties.setProperty(name, value);
        }
    }

    /** Safe to log: secrets show only whether they are set. */
    @Override
    public String toString() {
        return "ConnectionSettings{url=" + url
                + ", user=" + user
                + ", password=" + (password == null ? "(none)" : Password.HIDDEN)
                + ", poolSize=" + poolSize
                + ", attempts=" + attempts
                + ", backoffMs=" + backoffMs
                + ", timeoutMs=" + timeoutMs
                + ", socketTimeoutMs=" + socketTimeoutMs
                + ", statementTimeoutMs=" + statementTimeoutMs
                + ", lockTimeoutMs=" + lockTimeoutMs
                + ", maxOutageMs=" + maxOutageMs
                + ", sslMode=" + sslMode.driverValue()
                + ", sslRootCert=" + sslRootCert
                + ", sslCert=" + sslCert
                + ", sslKey=" + sslKey
                + ", sslKeyPassword=" + (sslKeyPassword == null ? "(none)" : Password.HIDDEN)
                + '}';
    }
}

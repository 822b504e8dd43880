/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.probe;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import org.postgresql.Driver;

import javax.net.ssl.SSLException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Properties;

/**
 * Why logging in failed, told apart the way an operator must act on it. A server that never
 * answered may simply not be up yet: a connector deployed before its database must be accepted,
 * and its tasks wait. A typing error (an unknown host, a wrong password, a database that does not
 * exist) is not an outage: no retry cures it, so it is a configuration error filed under the key
 * to change, in {@code validate()} and when a task starts. Both connectors classify through this
 * one class.
 *
 * @param kind    what the failure means
 * @param key     the configuration key to change, for {@link Kind#CONFIGURATION}; otherwise {@code connection.url}
 * @param message for the user: what happened and what to change; never contains a secret
 */
public record ConnectionFailure(Kind kind, String key, String message) {

    public enum Kind {
        /** No server answered (refused, timed out, not accepting connections yet): may pass. */
        UNREACHABLE,
        /** A server answered and refused, for a reason in the configuration. */
        CONFIGURATION,
        /** Anything else (e.g. too many connections): reported, but not blamed on one key. */
        OTHER
    }

    /** PostgreSQL's invalid_password. */
    static final String INVALID_PASSWORD = "28P01";
    /** invalid_authorization_specification: no such role, no pg_hba.conf entry, role may not log in. */
    static final String INVALID_AUTHORIZATION = "28000";
    /** invalid_catalog_name: the database named in the URL does not exist. */
    static final String NO_SUCH_DATABASE = "3D000";
    /** cannot_connect_now: the server is starting up or shutting down. */
    static final String CANNOT_CONNECT_NOW = "57P03";
    /** The driver's "connection rejected": the server answered, but not as the settings require. */
    static final String CONNECTION_REJECTED = "08004";

    /** Classifies a failure to log in with {@code settings}; {@code failure} may be wrapped (a pool's, a client's). */
    public static ConnectionFailure classify(Throwable failure, ConnectionSettings settings) {
        String user = settings.user().isEmpty() ? "the URL's user" : "user '" + settings.user() + "'";
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof UnknownHostException) {
                return configuration(ConnectionConfigDef.URL, "Unknown host '" + t.getMessage() + "' in "
                        + ConnectionConfigDef.URL + ": no address is known for that name. Check the host name in "
                        + ConnectionConfigDef.URL);
            }
            if (t instanceof SSLException) {
                return configuration(ConnectionConfigDef.SSL_MODE, "The TLS handshake with the server failed: "
                        + describe(t, settings) + ". Check " + ConnectionConfigDef.SSL_MODE + " and the certificate "
                        + "files (" + ConnectionConfigDef.SSL_ROOT_CERT + ", " + ConnectionConfigDef.SSL_CERT + ", "
                        + ConnectionConfigDef.SSL_KEY + ")");
            }
            if (!(t instanceof SQLException sql) || sql.getSQLState() == null) {
                continue;
            }
            String why = describe(sql, settings);
            switch (sql.getSQLState()) {
                case INVALID_PASSWORD:
                    return configuration(ConnectionConfigDef.PASSWORD, "The server refused the password of " + user
                            + " (" + INVALID_PASSWORD + ": " + why + "). Check " + ConnectionConfigDef.PASSWORD
                            + " (and " + ConnectionConfigDef.USER + ")");
                case INVALID_AUTHORIZATION:
                    return configuration(ConnectionConfigDef.USER, "The server refused the login of " + user + " ("
                            + INVALID_AUTHORIZATION + ": " + why + "). Check " + ConnectionConfigDef.USER + ", and that "
                            + "the role exists, may log in, and that pg_hba.conf admits it to this database from this host");
                case NO_SUCH_DATABASE:
                    return configuration(ConnectionConfigDef.URL, "Database '" + databaseOf(settings) + "' does not "
                            + "exist on the server (" + NO_SUCH_DATABASE + ": " + why + "). Check the database name in "
                            + ConnectionConfigDef.URL + ", or create the database");
                case CONNECTION_REJECTED:
                    return rejected(sql, why);
                case CANNOT_CONNECT_NOW:
                    return unreachable("the server is not accepting connections yet (" + CANNOT_CONNECT_NOW + ": " + why + ")");
                default:
                    break;
            }
        }
        if (Unreachable.is(failure)) {
            return unreachable(failure instanceof SQLException sql ? describe(sql, settings) : describe(failure, settings));
        }
        return new ConnectionFailure(Kind.OTHER, ConnectionConfigDef.URL, describe(failure, settings));
    }

    /** The driver's 08004: the server answered and refused what the settings ask (TLS, a password). */
    private static ConnectionFailure rejected(SQLException e, String why) {
        String text = why.toLowerCase(Locale.ROOT);
        if (text.contains("ssl")) {
            return configuration(ConnectionConfigDef.SSL_MODE, "The server refused the TLS settings (" + why
                    + "). Check " + ConnectionConfigDef.SSL_MODE + " (disable, or allow/prefer for a server without TLS)");
        }
        if (text.contains("password")) {
            return configuration(ConnectionConfigDef.PASSWORD, "The server asks for a password and none was given ("
                    + why + "). Set " + ConnectionConfigDef.PASSWORD);
        }
        return configuration(ConnectionConfigDef.USER, "The server refused the login (" + why + "). Check "
                + ConnectionConfigDef.USER + " and " + ConnectionConfigDef.PASSWORD);
    }

    public boolean isConfiguration() {
        return kind == Kind.CONFIGURATION;
    }

    public boolean isUnreachable() {
        return kind == Kind.UNREACHABLE;
    }

    private static ConnectionFailure configuration(String key, String message) {
        return new ConnectionFailure(Kind.CONFIGURATION, key, message);
    }

    private static ConnectionFailure unreachable(String message) {
        return new ConnectionFailure(Kind.UNREACHABLE, ConnectionConfigDef.URL, message);
    }

    private static String describe(Throwable t, ConnectionSettings settings) {
        if (t instanceof SQLException sql) {
            return DatabaseProbe.describe(sql, settings);
        }
        return DatabaseProbe.describe(new SQLException(t.getMessage() == null ? t.getClass().getSimpleName()
                : t.getMessage()), settings);
    }

    /** The database the URL names (the user's name when it names none, as libpq does). */
    private static String databaseOf(ConnectionSettings settings) {
        Properties parsed = Driver.parseURL(settings.url(), new Properties());
        String database = parsed == null ? null : parsed.getProperty("PGDBNAME");
        if (database == null || database.isEmpty()) {
            return settings.user().isEmpty() ? "?" : settings.user();
        }
        return database;
    }
}

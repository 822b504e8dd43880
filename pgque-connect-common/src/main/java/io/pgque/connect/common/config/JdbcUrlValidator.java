/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.postgresql.Driver;

import java.util.Locale;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Accepts only PostgreSQL JDBC URLs that carry no secret. Messages never repeat the URL itself:
 * a rejected URL may be exactly the one that holds a password.
 */
public final class JdbcUrlValidator implements ConfigDef.Validator {

    public static final String PREFIX = "jdbc:postgresql:";

    // A secret in the URL would be printed by every component that logs the URL (Kafka's own
    // config dump included), so it must come through connection.password instead.
    private static final Pattern SECRET_PARAMETER =
            Pattern.compile("[?&;](ssl)?password=", Pattern.CASE_INSENSITIVE);

    @Override
    public void ensureValid(String name, Object value) {
        String url = value == null ? "" : value.toString().trim();
        if (!url.startsWith(PREFIX)) {
            throw new ConfigException("Invalid value for configuration " + name + ": must start with "
                    + PREFIX + " (for example jdbc:postgresql://host:5432/database)");
        }
        if (SECRET_PARAMETER.matcher(url).find()) {
            boolean tlsKey = url.toLowerCase(Locale.ROOT).contains("sslpassword=");
            throw new ConfigException("Invalid value for configuration " + name + ": the URL must not carry a "
                    + (tlsKey ? "sslpassword" : "password") + " parameter; give it in "
                    + (tlsKey ? ConnectionConfigDef.SSL_KEY_PASSWORD : ConnectionConfigDef.PASSWORD)
                    + ", which is kept out of logs");
        }
        if (Driver.parseURL(url, new Properties()) == null) {
            throw new ConfigException("Invalid value for configuration " + name + ": the PostgreSQL driver cannot read "
                    + "this URL. Check the port (a number from 1 to 65535) and any %-escapes in its parameters; "
                    + "for example jdbc:postgresql://host:5432/database");
        }
    }

    /**
     * Why {@code url} and {@code user} (the connection.user value) do not go together, or null
     * when they do: the driver lets a user parameter in the URL override the user it is given, so
     * a URL naming one role and connection.user another would log in as the URL's, silently.
     * Empty {@code user} leaves the login to the URL.
     */
    static String userConflict(String url, String user) {
        if (user.isEmpty()) {
            return null;
        }
        Properties parsed = Driver.parseURL(url, new Properties());
        String urlUser = parsed == null ? null : parsed.getProperty("user");
        if (urlUser == null || urlUser.equals(user)) {
            return null;
        }
        return ConnectionConfigDef.USER + "=" + user + " and the user parameter of " + ConnectionConfigDef.URL
                + " (" + urlUser + ") name different roles; the driver would log in as " + urlUser + ". Remove the user "
                + "parameter from " + ConnectionConfigDef.URL + ", or leave " + ConnectionConfigDef.USER + " empty";
    }

    @Override
    public String toString() {
        return PREFIX + "... (no password parameter)";
    }
}

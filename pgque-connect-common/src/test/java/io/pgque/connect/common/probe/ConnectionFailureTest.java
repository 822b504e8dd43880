/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.probe;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which login failures are typing errors (filed under a key) and which are an outage; real failures in LoginFailuresIT. */
class ConnectionFailureTest {

    private static final ConnectionSettings SETTINGS = ConnectionSettings.from(new AbstractConfig(
            ConnectionConfigDef.addTo(new ConfigDef()), Map.of(
                    ConnectionConfigDef.URL, "jdbc:postgresql://db.example:5432/orders",
                    ConnectionConfigDef.USER, "app",
                    ConnectionConfigDef.PASSWORD, "pw-Secret-1"), false));

    private static ConnectionFailure classify(Throwable failure) {
        return ConnectionFailure.classify(failure, SETTINGS);
    }

    @Test
    void anUnknownHostIsAConfigurationErrorOfTheUrl() {
        SQLException driver = new SQLException("The connection attempt failed.", "08001",
                new UnknownHostException("db.exmaple"));
        ConnectionFailure failure = classify(driver);
        assertTrue(failure.isConfiguration());
        assertEquals(ConnectionConfigDef.URL, failure.key());
        assertTrue(failure.message().contains("Unknown host 'db.exmaple'"), failure.message());
    }

    @Test
    void refusedLoginsAndAMissingDatabaseAreFiledUnderTheirKeys() {
        assertEquals(ConnectionConfigDef.PASSWORD,
                classify(new SQLException("password authentication failed for user \"app\"", "28P01")).key());
        assertEquals(ConnectionConfigDef.USER,
                classify(new SQLException("role \"app\" does not exist", "28000")).key());
        ConnectionFailure database = classify(new SQLException("database \"orders\" does not exist", "3D000"));
        assertEquals(ConnectionConfigDef.URL, database.key());
        assertTrue(database.message().contains("Database 'orders' does not exist"), database.message());
        assertEquals(ConnectionConfigDef.SSL_MODE,
                classify(new SQLException("The server does not support SSL.", "08004")).key());
        assertEquals(ConnectionConfigDef.PASSWORD, classify(new SQLException(
                "The server requested password-based authentication, but no password was provided.", "08004")).key());
    }

    @Test
    void aPoolsTimeoutIsClassifiedByTheLoginFailureInside() {
        SQLTransientConnectionException pool = new SQLTransientConnectionException("pool - Connection is not "
                + "available, request timed out after 250ms", "08001",
                new SQLException("password authentication failed for user \"app\"", "28P01"));
        ConnectionFailure failure = classify(pool);
        assertTrue(failure.isConfiguration());
        assertEquals(ConnectionConfigDef.PASSWORD, failure.key());
    }

    @Test
    void noServerAnsweringIsAnOutageNotAConfigurationError() {
        assertTrue(classify(new SQLException("Connection to db.example:5432 refused.", "08001",
                new ConnectException("Connection refused"))).isUnreachable());
        assertTrue(classify(new SQLException("the database system is starting up", "57P03")).isUnreachable());
        assertTrue(classify(new SQLTransientConnectionException("request timed out after 250ms")).isUnreachable());
        ConnectionFailure crowded = classify(new SQLException("sorry, too many clients already", "53300"));
        assertFalse(crowded.isUnreachable() || crowded.isConfiguration(), crowded.toString());
    }

    @Test
    void noMessageRepeatsThePassword() {
        ConnectionFailure failure = classify(new SQLException("server echoed pw-Secret-1", "28P01"));
        assertFalse(failure.message().contains("pw-Secret-1"), failure.message());
    }
}

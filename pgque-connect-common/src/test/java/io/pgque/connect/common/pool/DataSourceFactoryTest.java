/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.pool;

import com.zaxxer.hikari.HikariConfig;
import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

class DataSourceFactoryTest {

    private static ConnectionSettings settings(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>(extra);
        props.put("connection.url", "jdbc:postgresql://localhost:5432/app");
        return ConnectionSettings.from(new AbstractConfig(ConnectionConfigDef.addTo(new ConfigDef()), props, false));
    }

    @Test
    void poolFollowsTheSettings() {
        HikariConfig config = DataSourceFactory.configure(settings(Map.of(
                "connection.user", "writer",
                "connection.password", "pw",
                "connection.pool.size", "4",
                "connection.timeout.ms", "1500",
                "connection.ssl.mode", "require")), "pgque-sink-orders-0");

        assertEquals("pgque-sink-orders-0", config.getPoolName());
        assertEquals("jdbc:postgresql://localhost:5432/app", config.getJdbcUrl());
        assertEquals("org.postgresql.Driver", config.getDriverClassName());
        assertEquals("writer", config.getUsername());
        assertEquals("pw", config.getPassword());
        assertEquals(4, config.getMaximumPoolSize());
        assertEquals(1500L, config.getConnectionTimeout());
        assertEquals(-1L, config.getInitializationFailTimeout());

        Properties driver = config.getDataSourceProperties();
        assertEquals("require", driver.getProperty("sslmode"));
        assertEquals("pgque-sink-orders-0", driver.getProperty("ApplicationName"));
        assertEquals("2", driver.getProperty("connectTimeout"), "whole seconds, rounded up");
        assertEquals("2", driver.getProperty("loginTimeout"), "per connection, whole seconds, rounded up");
        assertEquals("45", driver.getProperty("socketTimeout"), "the default");
        assertEquals("select set_config('statement_timeout', '30000ms', false), set_config('lock_timeout', '10000ms', false)",
                config.getConnectionInitSql());
    }

    @Test
    void sessionTimeoutsFollowTheSettingsAndZeroLeavesTheServersOwn() {
        HikariConfig config = DataSourceFactory.configure(settings(Map.of(
                "connection.statement.timeout.ms", "2500",
                "connection.lock.timeout.ms", "0",
                "connection.socket.timeout.ms", "3500")), "p");
        assertEquals("select set_config('statement_timeout', '2500ms', false)", config.getConnectionInitSql());
        assertEquals("4", config.getDataSourceProperties().getProperty("socketTimeout"), "rounded up");

        HikariConfig none = DataSourceFactory.configure(settings(Map.of(
                "connection.statement.timeout.ms", "0",
                "connection.lock.timeout.ms", "0")), "p");
        assertNull(none.getConnectionInitSql());
    }

    @Test
    void absentCredentialsAreLeftToTheUrl() {
        HikariConfig config = DataSourceFactory.configure(settings(Map.of()), "p");
        assertNull(config.getUsername());
        assertNull(config.getPassword());
        assertFalse(config.getDataSourceProperties().containsKey("sslpassword"));
    }

    @Test
    void applicationNameFitsPostgresLimit() {
        String longName = "pgque-sink-" + "x".repeat(100);
        HikariConfig config = DataSourceFactory.configure(settings(Map.of()), longName);
        assertEquals(63, config.getDataSourceProperties().getProperty("ApplicationName").length());
        assertEquals(longName, config.getPoolName());
    }
}

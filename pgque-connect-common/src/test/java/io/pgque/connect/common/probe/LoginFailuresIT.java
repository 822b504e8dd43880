/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.probe;

import com.zaxxer.hikari.HikariDataSource;
import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import io.pgque.connect.common.health.DatabaseHealth;
import io.pgque.connect.common.pool.DataSourceFactory;
import io.pgque.testing.EmbeddedPg;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real logins that fail, against a real PostgreSQL: each typing error is a configuration error on
 * its key (at a task's start, and in validate()), a server that does not answer is not, and a
 * task's pools report what they see to its health. The shared server trusts local logins, so one
 * role is given a password that pg_hba.conf checks (scram-sha-256), for this class only.
 */
class LoginFailuresIT {

    private static final String ROLE = "login_it_pw";
    private static final String PASSWORD = "right-Pw-1";
    private static EmbeddedPg.TestDatabase db;
    private static Path hba;
    private static String hbaBefore;

    @BeforeAll
    static void start() throws Exception {
        db = EmbeddedPg.newDatabase("login_it");
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute("set password_encryption = 'scram-sha-256'");
            s.execute("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + ROLE + "') then "
                    + "create role " + ROLE + " login password '" + PASSWORD + "'; end if; end $$");
            try (ResultSet rs = s.executeQuery("show hba_file")) {
                rs.next();
                hba = Path.of(rs.getString(1));
            }
            hbaBefore = Files.readString(hba);
            Files.writeString(hba, "host all " + ROLE + " 127.0.0.1/32 scram-sha-256\n"
                    + "host all " + ROLE + " ::1/128 scram-sha-256\n" + hbaBefore);
            s.execute("select pg_reload_conf()");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (hba != null) {
            Files.writeString(hba, hbaBefore);
            try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
                s.execute("select pg_reload_conf()");
            }
        }
    }

    private static ConnectionSettings settings(String url, String user, String password, String... more) {
        Map<String, String> props = new HashMap<>();
        props.put(ConnectionConfigDef.URL, url);
        props.put(ConnectionConfigDef.USER, user);
        if (password != null) {
            props.put(ConnectionConfigDef.PASSWORD, password);
        }
        props.put(ConnectionConfigDef.TIMEOUT_MS, "10000");
        for (int i = 0; i < more.length; i += 2) {
            props.put(more[i], more[i + 1]);
        }
        return ConnectionSettings.from(new AbstractConfig(ConnectionConfigDef.addTo(new ConfigDef()), props, false));
    }

    private static String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + db.port() + "/" + database;
    }

    private static ConfigException refusedAtStart(ConnectionSettings settings) {
        return assertThrows(ConfigException.class, () -> DatabaseProbe.requireLogin(settings, "login-it"));
    }

    /** The key and message validate() files the failure under. */
    private static ConnectionFailure validated(ConnectionSettings settings) {
        return DatabaseProbe.check(settings, "login-it", "the test's configuration", probe -> null, f -> f, null);
    }

    @Test
    void aWrongPasswordIsAnErrorOfThePassword() {
        ConnectionSettings wrong = settings(url(db.name()), ROLE, "wrong-Pw-2");
        ConfigException atStart = refusedAtStart(wrong);
        assertTrue(atStart.getMessage().startsWith(ConnectionConfigDef.PASSWORD + ": ")
                && atStart.getMessage().contains("28P01"), atStart.getMessage());
        assertFalse(atStart.getMessage().contains("wrong-Pw-2"), atStart.getMessage());
        assertEquals(ConnectionConfigDef.PASSWORD, validated(wrong).key());
        assertDoesNotThrow(() -> DatabaseProbe.requireLogin(settings(url(db.name()), ROLE, PASSWORD), "login-it"));
        assertEquals(null, validated(settings(url(db.name()), ROLE, PASSWORD)), "the right password passes");
    }

    @Test
    void anUnknownRoleIsAnErrorOfTheUser() {
        ConnectionSettings nobody = settings(url(db.name()), "login_it_nobody", null);
        assertTrue(refusedAtStart(nobody).getMessage().startsWith(ConnectionConfigDef.USER + ": "));
        ConnectionFailure failure = validated(nobody);
        assertEquals(ConnectionConfigDef.USER, failure.key());
        assertTrue(failure.message().contains("28000"), failure.message());
    }

    @Test
    void aMissingDatabaseIsAnErrorOfTheUrl() {
        ConnectionSettings missing = settings(url("login_it_no_such_db"), "postgres", null);
        ConfigException atStart = refusedAtStart(missing);
        assertTrue(atStart.getMessage().startsWith(ConnectionConfigDef.URL + ": ")
                && atStart.getMessage().contains("Database 'login_it_no_such_db' does not exist"), atStart.getMessage());
        assertEquals(ConnectionConfigDef.URL, validated(missing).key());
    }

    @Test
    void anUnknownHostIsAnErrorOfTheUrl() {
        ConnectionSettings typo = settings("jdbc:postgresql://no-such-host.invalid:5432/app", "postgres", null);
        assertTrue(refusedAtStart(typo).getMessage().contains("Unknown host 'no-such-host.invalid'"));
        assertEquals(ConnectionConfigDef.URL, validated(typo).key());
    }

    @Test
    void aServerThatDoesNotAnswerOnlyWarns() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        ConnectionSettings down = settings("jdbc:postgresql://127.0.0.1:" + port + "/app", "postgres", null);
        assertDoesNotThrow(() -> DatabaseProbe.requireLogin(down, "login-it"), "deployed before its database: accepted");
        assertEquals(null, validated(down), "validate() accepts it (the unreachable result)");
    }

    @Test
    void aTasksPoolsReportLoginsToItsHealth() throws Exception {
        ConnectionSettings wrong = settings(url(db.name()), ROLE, "wrong-Pw-2", ConnectionConfigDef.TIMEOUT_MS, "1000",
                ConnectionConfigDef.MAX_OUTAGE_MS, "1");
        DatabaseHealth refused = new DatabaseHealth(wrong);
        try (HikariDataSource pool = DataSourceFactory.create(wrong, "login-it-wrong", refused)) {
            assertThrows(SQLException.class, pool::getConnection);
            assertFalse(refused.connected());
            ConnectException failed = assertThrows(ConnectException.class, refused::checkOutage);
            assertTrue(failed.getMessage().contains(ConnectionConfigDef.MAX_OUTAGE_MS)
                    && failed.getMessage().contains("28P01"), failed.getMessage());
        }

        ConnectionSettings right = settings(url(db.name()), ROLE, PASSWORD);
        DatabaseHealth working = new DatabaseHealth(right);
        try (HikariDataSource pool = DataSourceFactory.create(right, "login-it-right", working)) {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("select 1");
            }
            assertTrue(working.connected());
            assertTrue(working.lastSuccessAgeMs() >= 0, "a success was seen");
            // A broken session is an outage until the pool hands out a working connection again.
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                assertThrows(SQLException.class, () -> s.execute("select pg_terminate_backend(pg_backend_pid())"));
            }
            assertFalse(working.connected(), "the broken connection was reported");
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("select 1");
            }
            assertTrue(working.connected(), "connected again");
        }
    }
}

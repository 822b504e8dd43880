/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ENGINE.md decision 7: one idempotent, re-runnable install script, versioned by pgque.version();
 * it refuses to downgrade and refuses a pgque schema it did not create (SQLSTATE PQ007), and it
 * needs no superuser: a database owner with CREATEROLE can run it.
 */
class InstallIT {

    private static final String FUNCTIONS =
            "select count(*) from pg_proc where pronamespace = 'pgque'::regnamespace";
    private static final String RELATIONS =
            "select count(*) from pg_class where relnamespace = 'pgque'::regnamespace";

    private static EmbeddedPg.TestDatabase db;
    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        db = EmbeddedPg.newDatabase("install").installEngine();
        sql = new Sql(db.superuser());
    }

    /** Runs the whole install script like {@code psql -f}, on a connection of {@code ds}. */
    static void runScript(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(EmbeddedPg.engineScript());
        }
    }

    /** The version written in the script header ({@code -- pgque-engine-version: X.Y.Z}). */
    static String scriptVersion() {
        Matcher m = Pattern.compile("(?m)^-- pgque-engine-version: (\\S+)\\s*$").matcher(EmbeddedPg.engineScript());
        assertTrue(m.find(), "the install script declares its version in a header line");
        return m.group(1);
    }

    @Test
    void versionFunctionReportsTheScriptVersion() {
        String v = scriptVersion();
        assertTrue(v.matches("[0-9]+\\.[0-9]+\\.[0-9]+.*"), "a real version, not a placeholder: " + v);
        assertEquals(v, sql.one(String.class, "select pgque.version()"));
    }

    @Test
    void runningTheScriptAgainKeepsQueuesEventsSubscriptionsAndOpenBatches() throws Exception {
        String q = "reinstall";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        sql.config(q, "max_retries", "7");
        long e1 = sql.send(q, "before-1");
        sql.tick(q);
        List<Msg> open = sql.receive(q, "c", 10); // an open, un-acked batch
        long e2 = sql.send(q, "before-2");
        sql.tick(q);
        long e3 = sql.send(q, "before-3"); // sent, not yet ticked
        long functions = sql.oneLong(FUNCTIONS);
        long relations = sql.oneLong(RELATIONS);
        String version = sql.one(String.class, "select pgque.version()");

        runScript(db.superuser());
        runScript(db.superuser());

        assertEquals(functions, sql.oneLong(FUNCTIONS), "function count unchanged");
        assertEquals(relations, sql.oneLong(RELATIONS), "no relation added or dropped");
        assertEquals(version, sql.one(String.class, "select pgque.version()"));
        assertEquals(1, sql.oneLong("select count(*) from pgque.get_queue_info(?)", q));
        assertEquals(1, sql.oneLong("select count(*) from pgque.get_consumer_info(?, ?)", q, "c"));
        assertEquals(7, sql.oneLong("select queue_max_retries from pgque.queue where queue_name = ?", q),
                "queue configuration kept");

        // grants survive: a reader role can still consume
        String readerRole = "coretest_install_reader";
        sql.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + readerRole + "') then"
                + " create role " + readerRole + " login; end if; end $$");
        sql.exec("grant pgque_reader to " + readerRole);
        Sql reader = new Sql(db.as(readerRole));
        List<Msg> again = reader.receive(q, "c", 10);
        assertEquals(List.of(e1), again.stream().map(Msg::msgId).toList(), "the open batch is re-issued");
        assertEquals(open.get(0).batchId(), again.get(0).batchId());
        assertEquals(1, sql.ack(again.get(0).batchId()));
        sql.tick(q);
        assertEquals(List.of(e2, e3), sql.drain(q, "c").stream().map(Msg::msgId).toList(),
                "events ticked and not yet ticked before the reinstall are delivered");
    }

    @Test
    void refusesAPgqueSchemaItDidNotCreate() {
        EmbeddedPg.TestDatabase foreign = EmbeddedPg.newDatabase("foreign_pgque");
        Sql f = new Sql(foreign.superuser());
        f.exec("create schema pgque");
        f.exec("create table pgque.queue(x int)");
        f.exec("insert into pgque.queue values (42)");

        SQLException e = Sql.expectSqlState("PQ007", () -> runScript(foreign.superuser()));
        assertTrue(e.getMessage().contains("pgque"), "the message names the schema: " + e.getMessage());

        assertEquals(1, f.oneLong(RELATIONS), "nothing was created in the foreign schema");
        assertEquals(0, f.oneLong(FUNCTIONS));
        assertEquals(List.of(Map.of("x", 42)), f.rows("select * from pgque.queue"), "its table is untouched");
        assertEquals(1, f.oneLong("select count(*) from pg_attribute where attrelid = 'pgque.queue'::regclass and attnum > 0"));
    }

    @Test
    void refusesToDowngrade() {
        EmbeddedPg.TestDatabase newer = EmbeddedPg.newDatabase("downgrade").installEngine();
        Sql n = new Sql(newer.superuser());
        n.createQueue("keep");
        // Pretend a newer engine is installed: the installer records its version in pgque.engine_info.
        n.exec("update pgque.engine_info set engine_version = '99.0.0'");
        long functions = n.oneLong(FUNCTIONS);

        SQLException e = Sql.expectSqlState("PQ007", () -> runScript(newer.superuser()));
        assertTrue(e.getMessage().contains("99.0.0"), "the message names the installed version: " + e.getMessage());
        assertEquals("99.0.0", n.one(String.class, "select engine_version from pgque.engine_info"));
        assertEquals(functions, n.oneLong(FUNCTIONS));
        assertEquals(1, n.oneLong("select count(*) from pgque.queue where queue_name = 'keep'"));
    }

    @Test
    void databaseOwnerWithCreateRoleInstallsWithoutSuperuserOnAClusterThatHasThePgqueRoles() throws Exception {
        // The shared server already has the pgque_* roles (created by other installs as superuser).
        EmbeddedPostgres server = EmbeddedPg.server();
        ownerInstallAndRoundTrip(server, "coretest_owner_shared", false);
    }

    @Test
    void databaseOwnerWithCreateRoleInstallsWithoutSuperuserOnAFreshCluster() throws Exception {
        // A cluster where the pgque_* roles do not exist yet: the owner creates them.
        try (EmbeddedPostgres fresh = EmbeddedPostgres.builder()
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .start()) {
            ownerInstallAndRoundTrip(fresh, "coretest_owner_fresh", true);
        }
    }

    private static void ownerInstallAndRoundTrip(EmbeddedPostgres server, String owner, boolean ownerGrants) throws Exception {
        String dbName = owner + "_db";
        Sql pg = new Sql(server.getPostgresDatabase());
        pg.exec("create role " + owner + " login createrole");
        pg.exec("create database " + dbName + " owner " + owner);
        assertEquals(false, pg.one(Boolean.class, "select rolsuper from pg_roles where rolname = ?", owner));

        runScript(server.getDatabase(owner, dbName));
        runScript(server.getDatabase(owner, dbName)); // and again, still as the owner

        Sql admin = new Sql(server.getDatabase(owner, dbName));
        String w = owner + "_w";
        String r = owner + "_r";
        Sql grantor = ownerGrants ? admin : new Sql(server.getDatabase("postgres", dbName));
        grantor.exec("create role " + w + " login");
        grantor.exec("create role " + r + " login");
        grantor.exec("grant pgque_writer to " + w);
        grantor.exec("grant pgque_reader to " + r);
        Sql writer = new Sql(server.getDatabase(w, dbName));
        Sql reader = new Sql(server.getDatabase(r, dbName));

        admin.createQueue("q");
        reader.subscribe("q", "c");
        long id = writer.send("q", "round-trip");
        admin.tick("q");
        List<Msg> got = reader.receive("q", "c", 10);
        assertEquals(List.of(id), got.stream().map(Msg::msgId).toList());
        assertEquals("round-trip", got.get(0).payload());
        assertEquals(1, reader.ack(got.get(0).batchId()));
        Sql.expectSqlState("42501", () -> writer.receive("q", "c", 10));
        Sql.expectSqlState("42501", () -> reader.send("q", "x"));
    }
}

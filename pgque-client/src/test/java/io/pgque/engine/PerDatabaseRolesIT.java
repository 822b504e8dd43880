/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 40 item 2: PostgreSQL roles are cluster-wide, so the shared pgque_* roles make every
 * database with the engine one trust domain. Installed with pgque.role_prefix, a database gets
 * roles of its own; here two databases on one server, each with its own prefix.
 */
class PerDatabaseRolesIT {

    private static final String A = "tenant_a_pgque";
    private static final String B = "tenant_b_pgque";
    private static EmbeddedPg.TestDatabase dbA;
    private static EmbeddedPg.TestDatabase dbB;

    @BeforeAll
    static void installTwoDatabases() throws SQLException {
        dbA = EmbeddedPg.newDatabase("roles_a");
        dbB = EmbeddedPg.newDatabase("roles_b");
        install(dbA, A);
        install(dbB, B);
        Sql a = new Sql(dbA.superuser());
        for (String login : List.of("pdr_reader_a", "pdr_admin_a")) {
            a.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + login + "') then"
                    + " create role " + login + " login; end if; end $$");
        }
        a.exec("grant " + A + "_reader to pdr_reader_a");
        a.exec("grant " + A + "_admin to pdr_admin_a");
        for (EmbeddedPg.TestDatabase db : List.of(dbA, dbB)) {
            Sql s = new Sql(db.superuser());
            s.createQueue("orders");
            s.subscribe("orders", "c");
            s.send("orders", "secret of " + db.name());
            s.tick("orders");
        }
    }

    /** The install script, as {@code PGOPTIONS='-c pgque.role_prefix=…' psql -f pgque.sql} runs it. */
    private static void install(EmbeddedPg.TestDatabase db, String prefix) throws SQLException {
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            if (prefix != null) {
                s.execute("set pgque.role_prefix = '" + prefix + "'");
            }
            s.execute(EmbeddedPg.engineScript());
        }
    }

    @Test
    void eachDatabaseHasRolesOfItsOwn() {
        Sql a = new Sql(dbA.superuser());
        for (String kind : List.of("reader", "writer", "admin", "ticker")) {
            assertEquals(1, a.oneLong("select count(*) from pg_roles where rolname = ?", A + "_" + kind));
        }
        assertEquals(A, a.one(String.class, "select role_prefix from pgque.engine_info"));
        assertTrue(a.one(Boolean.class, "select has_function_privilege(?, 'pgque.receive(text, text, int)', 'EXECUTE')",
                A + "_reader"));
        assertFalse(a.one(Boolean.class, "select has_function_privilege(?, 'pgque.receive(text, text, int)', 'EXECUTE')",
                B + "_reader"), "database B's reader has no rights in database A");
        assertFalse(a.one(Boolean.class, "select has_schema_privilege(?, 'pgque', 'USAGE')", B + "_admin"));
        assertTrue(a.one(Boolean.class, "select pg_has_role(?, ?, 'MEMBER')", A + "_admin", A + "_ticker"));
    }

    @Test
    void aLoginOfOneDatabaseCannotReadOrDropTheOther() {
        Sql readerInA = new Sql(dbA.as("pdr_reader_a"));
        assertEquals(List.of("secret of " + dbA.name()),
                readerInA.receive("orders", "c", 10).stream().map(Msg::payload).toList());
        Sql readerInB = new Sql(dbB.as("pdr_reader_a"));
        Sql.expectSqlState("42501", () -> readerInB.receive("orders", "c", 10));
        Sql.expectSqlState("42501", () -> readerInB.exec("select count(*) from pgque.queue"));
        Sql adminInB = new Sql(dbB.as("pdr_admin_a"));
        Sql.expectSqlState("42501", () -> adminInB.exec("select pgque.drop_queue('orders', true)"));
        assertEquals(1, new Sql(dbB.superuser()).oneLong("select count(*) from pgque.queue where queue_name = 'orders'"));
    }

    @Test
    void theRecordedPrefixIsKeptAndCannotBeSwitched() throws SQLException {
        install(dbA, null);
        assertEquals(A, new Sql(dbA.superuser()).one(String.class, "select role_prefix from pgque.engine_info"));
        SQLException refused = Sql.expectSqlState("PQ007", () -> install(dbA, "tenant_c_pgque"));
        assertTrue(refused.getMessage().contains(A), refused.getMessage());
        Sql.expectSqlState("22023", () -> install(EmbeddedPg.newDatabase("roles_bad"), "Bad-Prefix"));
    }
}

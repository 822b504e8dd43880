/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 47 item 7: a user's object built on an internal engine function. An upgrade replaces the
 * engine's functions in place, so a view over one it keeps does not stop it; one over a function
 * the new version removes does, with an error that names the object and says what to do, and
 * nothing changed.
 */
class UpgradeDependentsIT {

    @Test
    void aViewOverAFunctionTheUpgradeKeepsDoesNotStopIt() throws Exception {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("dependents_kept");
        EngineScripts.run(db, EngineScripts.released(EngineScripts.LAST_RELEASE));
        Sql sql = new Sql(db.superuser());
        sql.exec("create view public.my_tables as select pgque.event_table_name(1, 0) as t");
        EngineScripts.run(db, EmbeddedPg.engineScript());
        EngineScripts.run(db, EmbeddedPg.engineScript());
        assertEquals("pgque.event_1_0", sql.one(String.class, "select t from public.my_tables"));
    }

    @Test
    void aFunctionOverAFunctionTheUpgradeRemovesStopsItNamingTheFunction() throws Exception {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("dependents_removed");
        EngineScripts.run(db, EngineScripts.released(EngineScripts.LAST_RELEASE));
        Sql sql = new Sql(db.superuser());
        // A SQL-standard function body records what it calls; 0.5.0 has no tick_lock(int4).
        sql.exec("create function public.my_lock() returns void begin atomic select pgque.tick_lock(1); end");
        SQLException refused = assertThrows(SQLException.class, () -> EngineScripts.run(db, EmbeddedPg.engineScript()));
        assertEquals("2BP01", refused.getSQLState());
        assertTrue(refused.getMessage().contains("function public.my_lock()"), refused.getMessage());
        assertTrue(refused.getMessage().contains("(on pgque.tick_lock(integer))"), refused.getMessage());
        assertEquals(EngineScripts.LAST_RELEASE, sql.one(String.class, "select pgque.version()"), "nothing changed");
        sql.exec("drop function public.my_lock()");
        EngineScripts.run(db, EmbeddedPg.engineScript());
        assertEquals(io.pgque.client.PgQueInstaller.bundledVersion(), sql.one(String.class, "select pgque.version()"));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.client.PgQueInstaller;
import io.pgque.testing.EmbeddedPg;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 47, items 1 and 2: nothing the engine's owner runs resolves a name through a schema
 * someone else controls. The engine is installed as the docs say (a database owner with
 * CREATEROLE, no superuser); a planter puts functions and an operator whose argument types match
 * the engine's calls exactly where the owner's default search_path looks first: on PostgreSQL 15
 * and newer a reader with CREATE on the database (as an application schema's owner has) makes a
 * schema named after the installer ({@code "$user"}); on 14, where every login may create in
 * {@code public}, a login with no grant at all plants there. Each planted routine records that it
 * ran, as whom, and then does what the real one does, as an attack would.
 */
class OwnerSearchPathIT {

    private static final String OWNER = "osp_owner";
    private static final String PLANTER = "osp_planter";

    private static EmbeddedPostgres server;
    private static Plant plant;

    @BeforeAll
    static void installAsTheDatabaseOwnerAndPlant() throws SQLException {
        server = EmbeddedPg.server();
        Sql pg = new Sql(server.getPostgresDatabase());
        for (String role : List.of(OWNER, PLANTER)) {
            pg.exec("do $$ begin if not exists (select 1 from pg_roles where rolname = '" + role + "') then"
                    + " create role " + role + " login; end if; end $$");
        }
        pg.exec("alter role " + OWNER + " createrole");
        plant = Plant.in(pg, newOwnedDatabase(pg, "osp_main"));
    }

    /** A database owned by the installer, the engine installed by it, the plant in place. */
    private static String newOwnedDatabase(Sql pg, String name) throws SQLException {
        pg.exec("drop database if exists " + name);
        pg.exec("create database " + name + " owner " + OWNER);
        runScript(server.getDatabase(OWNER, name));
        return name;
    }

    private static void runScript(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(EmbeddedPg.engineScript());
        }
    }

    @BeforeEach
    void clearTheLog() {
        plant.clear();
    }

    @Test
    void thePlantRunsForAnUnpinnedCallOfTheOwner() {
        // The control: the owner's own unqualified call with the default search_path finds the
        // planted function and operator, so their silence below means the engine pinned its path.
        Sql owner = plant.owner();
        assertEquals("a b", owner.one(String.class, "select format('%s %s', 'a'::name, 'b'::name)"));
        assertEquals(0.5, owner.one(Double.class, "select 1.0::float8 / 2"));
        assertEquals(List.of("format(text,name,name)", "/(float8,int4)"), plant.ran(OWNER));
    }

    @Test
    void reRunningTheInstallScriptRunsNoPlantedCode() throws SQLException {
        runScript(server.getDatabase(OWNER, plant.database));
        assertEquals(List.of(), plant.ranAtAll());
    }

    @Test
    void theJavaInstallerRunsNoPlantedCode() {
        new PgQueInstaller(server.getDatabase(OWNER, plant.database)).install();
        new PgQueInstaller(server.getDatabase(OWNER, plant.database)).installOrUpgrade();
        assertEquals(List.of(), plant.ranAtAll());
    }

    @Test
    void theSchedulersJobsRunNoPlantedCode() {
        // Every command start() and start_timetable() schedule, run as the jobs run them: as the
        // owner, in a session of the owner's default search_path. The ticker loop ticks for its
        // window (one second) with events waiting, so its arithmetic runs.
        Sql owner = plant.owner();
        owner.createQueue("osp_q");
        owner.subscribe("osp_q", "c");
        owner.send("osp_q", "x");
        List<String> commands = owner.rows("select command from pgque.cron_jobs() order by jobname").stream()
                .map(r -> (String) r.get("command")).toList();
        assertEquals(4, commands.size(), "the ticker loop, retries, maintenance and rotation's step 2");
        for (String command : commands) {
            owner.exec(command);
        }
        assertTrue(owner.oneLong("select count(*) from pgque.tick t join pgque.queue q on q.queue_id = t.tick_queue"
                + " where q.queue_name = 'osp_q'") >= 1, "the loop ticked");
        assertEquals(List.of(), plant.ranAtAll());
    }

    @Test
    void uninstallCallsNoPlantedCodeAndNoSchedulerSchemaSomeoneElseOwns() throws SQLException {
        // A database of its own, since this one ends without the engine. The planter also makes a
        // schema timetable with pg_timetable's two calls, as a reader with CREATE on the database can.
        Sql pg = new Sql(server.getPostgresDatabase());
        Plant other = Plant.in(pg, newOwnedDatabase(pg, "osp_uninstall"));
        new Sql(server.getDatabase("postgres", other.database)).exec("grant create on database osp_uninstall to " + PLANTER);
        other.planter().exec("create schema timetable");
        other.planter().exec("grant usage on schema timetable to public");
        other.planter().exec("create function timetable.add_job(job_name text, job_schedule text, job_command text,"
                + " job_kind text) returns bigint language plpgsql as $$ begin"
                + " insert into " + other.schema + ".plant_log values (current_user, 'timetable.add_job'); return 1; end $$");
        other.planter().exec("create function timetable.delete_job(text) returns boolean language plpgsql as $$ begin"
                + " insert into " + other.schema + ".plant_log values (current_user, 'timetable.delete_job'); return true; end $$");
        Sql owner = other.owner();
        Sql.SqlFailure refused = org.junit.jupiter.api.Assertions.assertThrows(Sql.SqlFailure.class,
                () -> owner.exec("select pgque.stop_timetable()"));
        assertTrue(refused.getMessage().contains("untrusted"), refused.getMessage());
        owner.exec("select pgque.uninstall()");
        assertFalse(owner.one(Boolean.class, "select to_regnamespace('pgque') is not null"), "the engine is gone");
        assertEquals(List.of(), other.ranAtAll());
    }

    @Test
    void onlyTheTickerLoopAndInlinedSqlFunctionsRunWithTheCallersSearchPath() {
        // The ticker loop cannot pin its path (it commits); it calls qualified functions only
        // (theSchedulersJobsRunNoPlantedCode). An SQL function without a SET clause is inlined
        // into the query of the pinned function that calls it; the caller's own session is no
        // one else's concern.
        List<String> unpinned = plant.owner().rows("""
                select p.oid::regprocedure::text as routine from pg_proc p join pg_language l on l.oid = p.prolang
                 where p.pronamespace = 'pgque'::regnamespace and l.lanname <> 'sql'
                   and not exists (select 1 from unnest(p.proconfig) c where c like 'search_path=%')
                 order by 1""").stream().map(r -> (String) r.get("routine")).toList();
        assertEquals(List.of("pgque.ticker_loop()"), unpinned);
    }

    /**
     * The planted routines in one database: a schema the planter owns on the owner's default
     * search_path, a log table everyone may write, and routines that log and then do what
     * PostgreSQL's own would.
     */
    private record Plant(String database, String schema, String planterRole) {

        static Plant in(Sql pg, String database) {
            Sql superuser = new Sql(server.getDatabase("postgres", database));
            boolean publicIsOpen = superuser.oneLong("select current_setting('server_version_num')::int") < 150000;
            Plant p;
            if (publicIsOpen) {
                // PostgreSQL 14: public is writable by every login; the planter has no grant at all.
                p = new Plant(database, "public", PLANTER);
            } else {
                // 15 and newer: a reader that may create schemas in the database (not a superuser's grant
                // of anything in the engine) names one after the installer, first on its search_path.
                superuser.exec("grant create on database " + database + " to " + PLANTER);
                p = new Plant(database, OWNER, PLANTER);
                p.planter().exec("create schema " + OWNER);
                p.planter().exec("grant usage on schema " + OWNER + " to public");
            }
            Sql planter = p.planter();
            planter.exec("create table " + p.schema + ".plant_log (who name, what text, at timestamptz default clock_timestamp())");
            planter.exec("grant insert, select on " + p.schema + ".plant_log to public");
            String log = "insert into " + p.schema + ".plant_log (who, what) values (current_user, ";
            for (int names = 1; names <= 5; names++) {
                StringBuilder params = new StringBuilder("f text");
                StringBuilder args = new StringBuilder("f");
                StringBuilder types = new StringBuilder("text");
                for (int i = 1; i <= names; i++) {
                    params.append(", a").append(i).append(" name");
                    args.append(", a").append(i);
                    types.append(",name");
                }
                planter.exec("create function " + p.schema + ".format(" + params + ") returns text language plpgsql as $$ begin "
                        + log + "'format(" + types + ")'); return pg_catalog.format(" + args + "); end $$");
            }
            planter.exec("create function " + p.schema + ".plant_div(a float8, b int4) returns float8 language plpgsql as $$ begin "
                    + log + "'/(float8,int4)'); return a operator(pg_catalog./) b::float8; end $$");
            planter.exec("create operator " + p.schema + "./ (leftarg = float8, rightarg = int4, function = "
                    + p.schema + ".plant_div)");
            return p;
        }

        Sql planter() {
            return new Sql(server.getDatabase(planterRole, database));
        }

        Sql owner() {
            return new Sql(server.getDatabase(OWNER, database));
        }

        void clear() {
            planter().exec("delete from " + schema + ".plant_log");
        }

        /** What the plant did as {@code role}, in order. */
        List<String> ran(String role) {
            return planter().rows("select what from " + schema + ".plant_log where who = ? order by at", role).stream()
                    .map(r -> (String) r.get("what")).toList();
        }

        /** Everything the plant did, as whom. */
        List<Map<String, Object>> ranAtAll() {
            return planter().rows("select who::text, what from " + schema + ".plant_log order by at");
        }
    }
}

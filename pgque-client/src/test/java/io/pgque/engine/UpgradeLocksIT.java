/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.client.PgQueInstaller;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 47 item 8: what an upgrade locks, and for how long it waits. A re-run of the script takes
 * no lock that blocks a client; an upgrade from the last release locks only the tables it
 * changes, waits for each at most its lock_timeout and then fails having changed nothing, and the
 * Java installer runs it again until the lock is free. Each case with a second, real session
 * holding what a client holds.
 */
class UpgradeLocksIT {

    /** Modes that block a client reading or writing a table: taken only where a table changes. */
    private static final String STRONG_LOCKS = """
            select coalesce(string_agg(c.relname || ' ' || l.mode, ', ' order by c.relname), '')
              from pg_locks l join pg_class c on c.oid = l.relation
             where l.pid = pg_backend_pid() and c.relnamespace = to_regnamespace('pgque')
               and l.mode not in ('AccessShareLock', 'RowShareLock', 'RowExclusiveLock')""";

    @Test
    void aReRunTakesNoLockThatBlocksAClient() throws SQLException {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("locks_rerun").installEngine();
        Sql sql = new Sql(db.superuser());
        sql.createQueue("q");
        sql.exec("select pgque.subscribe_partitioned('q', 'c', 2)");
        assertEquals("", locksTakenBy(db, EmbeddedPg.engineScript()));
    }

    @Test
    void anUpgradeLocksOnlyTheTablesItChanges() throws Exception {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("locks_upgrade");
        EngineScripts.run(db, EngineScripts.released(EngineScripts.LAST_RELEASE));
        new Sql(db.superuser()).createQueue("q");
        // Tables that are new (and their sequences and indexes) block no client.
        String changed = Arrays.stream(locksTakenBy(db, EmbeddedPg.engineScript()).split(", "))
                .filter(lock -> !lock.matches("(tick_guard|delayed_events|partition_block|partition_handout|partition_set_aside)\\S* .*"))
                .collect(Collectors.joining(", "));
        assertEquals("config AccessExclusiveLock, partition_slot AccessExclusiveLock, "
                        + "partition_slot_status AccessExclusiveLock, queue AccessExclusiveLock", changed,
                "the tables and the view of 0.5.0's new columns; tick_guard, delayed_events and the pause tables "
                        + "are new");
    }

    @Test
    void anUpgradeBehindAClientFailsAtItsLockTimeoutHavingChangedNothingAndTheInstallerRetries() throws Exception {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("locks_timeout");
        EngineScripts.run(db, EngineScripts.released(EngineScripts.LAST_RELEASE));
        Sql sql = new Sql(db.superuser());
        sql.createQueue("q");
        try (Connection client = db.superuser().getConnection(); Statement st = client.createStatement()) {
            // A client's open transaction that has read the queue table: the upgrade adds a column to it.
            client.setAutoCommit(false);
            st.execute("select count(*) from pgque.queue");

            SQLException timedOut = assertThrows(SQLException.class, () -> {
                try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
                    s.execute("set pgque.install_lock_timeout = '500ms'");
                    s.execute(EmbeddedPg.engineScript());
                }
            });
            assertEquals("55P03", timedOut.getSQLState(), timedOut.getMessage());
            assertEquals(EngineScripts.LAST_RELEASE, sql.one(String.class, "select pgque.version()"), "nothing changed");
            assertEquals(0, sql.oneLong("select count(*) from pg_attribute where attrelid = 'pgque.queue'::regclass"
                    + " and attname = 'queue_idem_max_ttl'"));

            // The Java installer runs the script again while the client is still there, and
            // gets through once the client's transaction ends.
            CompletableFuture<String> installed = CompletableFuture.supplyAsync(
                    () -> new PgQueInstaller(db.superuser()).install());
            assertTrue(Sql.await(java.time.Duration.ofSeconds(20), java.time.Duration.ofMillis(50),
                    () -> sql.oneLong("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                            + " and datname = current_database()") > 0), "the installer waits behind the client");
            client.commit();
            assertEquals(PgQueInstaller.bundledVersion(), installed.get(60, TimeUnit.SECONDS));
        }
    }

    /** The strong locks the script holds just before its commit, run in a transaction that is then rolled back. */
    private static String locksTakenBy(EmbeddedPg.TestDatabase db, String script) throws SQLException {
        String withoutCommit = script.replaceAll("(?m)^COMMIT;\\s*$", "");
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute(withoutCommit);
            try (var rs = s.executeQuery(STRONG_LOCKS)) {
                rs.next();
                String locks = rs.getString(1);
                s.execute("rollback");
                return locks;
            }
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static io.pgque.client.ClientTesting.exec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Installing through the client; each test starts from a database of its own. */
class InstallerIT {

    @Test
    void bundledScriptDeclaresItsVersion() {
        assertTrue(PgQueInstaller.bundledVersion().matches("\\d+\\.\\d+\\.\\d+(-\\S+)?"),
                PgQueInstaller.bundledVersion());
    }

    @Test
    void installsOnceAndReinstallsHarmlessly() {
        PgQueInstaller installer = new PgQueInstaller(ClientTesting.newDatabase("client_install").superuser());
        assertEquals(Optional.empty(), installer.installedVersion());

        assertTrue(installer.installIfMissing());
        assertEquals(Optional.of(PgQueInstaller.bundledVersion()), installer.installedVersion());
        assertFalse(installer.installIfMissing());
        assertFalse(installer.installOrUpgrade(), "same version: nothing to upgrade");
        assertEquals(PgQueInstaller.bundledVersion(), installer.install(), "running the script again is harmless");
    }

    @Test
    void reinstallKeepsQueuesAndEvents() {
        DataSource ds = ClientTesting.newDatabase("client_reinstall").superuser();
        PgQueInstaller installer = new PgQueInstaller(ds);
        installer.install();
        PgQue pq = PgQue.using(ds);
        pq.queues().create("kept");
        pq.consumer().subscribe("kept", "c");
        long id = pq.producer().send("kept", "t", "survives");
        installer.install();
        Batch batch = ClientTesting.awaitBatch(pq, "kept", "c");
        assertEquals(id, batch.messages().get(0).msgId());
    }

    @Test
    void installOrUpgradeInstallsIntoAnEmptyDatabase() {
        PgQueInstaller installer = new PgQueInstaller(ClientTesting.newDatabase("client_upgrade").superuser());
        assertTrue(installer.installOrUpgrade());
        assertFalse(installer.installOrUpgrade());
    }

    @Test
    void concurrentInstallersInstallExactlyOnce() throws Exception {
        PgQueInstaller installer = new PgQueInstaller(ClientTesting.newDatabase("client_install_race").superuser());
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                results.add(pool.submit((Callable<Boolean>) installer::installIfMissing));
            }
            int installed = 0;
            for (Future<Boolean> f : results) {
                installed += f.get(2, TimeUnit.MINUTES) ? 1 : 0;
            }
            assertEquals(1, installed);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(Optional.of(PgQueInstaller.bundledVersion()), installer.installedVersion());
    }

    @Test
    void neverDowngrades() {
        DataSource ds = ClientTesting.newDatabase("client_downgrade").superuser();
        PgQueInstaller installer = new PgQueInstaller(ds);
        installer.install();
        // pretend a newer engine is installed (the engine records its version in engine_info)
        exec(ds, "update pgque.engine_info set engine_version = '999.0.0'");

        assertFalse(installer.installOrUpgrade(), "a newer engine is left alone");
        assertFalse(installer.installIfMissing());
        InstallRefusedException e = assertThrows(InstallRefusedException.class, installer::install);
        assertTrue(e.getMessage().contains("999.0.0"), e.getMessage());
        assertEquals(Optional.of("999.0.0"), installer.installedVersion());
    }

    @Test
    void refusesToOverwriteAForeignPgqueSchema() {
        DataSource ds = ClientTesting.newDatabase("client_foreign").superuser();
        exec(ds, "create schema pgque");
        exec(ds, "create function pgque.version() returns text language sql as $$ select '0.3.0-devel' $$");
        exec(ds, "create table pgque.queue (queue_id serial primary key, queue_name text unique)");
        PgQueInstaller installer = new PgQueInstaller(ds);

        assertEquals(Optional.of("0.3.0-devel"), installer.installedVersion());
        assertFalse(installer.installIfMissing(), "an engine is there, if not ours");
        InstallRefusedException e = assertThrows(InstallRefusedException.class, installer::install);
        assertEquals("PQ007", e.sqlState());
        assertEquals(Optional.of("0.3.0-devel"), installer.installedVersion(), "nothing was changed");
    }
}

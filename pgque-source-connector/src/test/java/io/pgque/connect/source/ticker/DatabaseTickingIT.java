/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ticker;

import io.pgque.testing.EmbeddedPg;
import io.pgque.testing.PgCronServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 15 item 4: the ticker duty notices ticking scheduled inside the database by
 * {@code pgque.start()} with pg_cron (a real one, see {@link PgCronServer}), and sees none where
 * nothing is scheduled, pg_cron is absent, or the role may not ask.
 */
class DatabaseTickingIT {

    private static PgCronServer server;

    @BeforeAll
    static void startServer() {
        server = PgCronServer.start().installEngineAndPgCron();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static void exec(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Test
    void noticesPgCronJobsOfStartAndTheirRemovalByStop() throws SQLException {
        DataSource ds = server.superuser();
        assertEquals(Optional.empty(), DatabaseTicking.scheduledBy(ds), "nothing scheduled yet");
        exec(ds, "select pgque.start()");
        try {
            Optional<String> scheduled = DatabaseTicking.scheduledBy(ds);
            assertTrue(scheduled.isPresent(), "pg_cron jobs seen");
            assertTrue(scheduled.get().contains("pg_cron"), scheduled.get());
        } finally {
            exec(ds, "select pgque.stop()");
        }
        assertEquals(Optional.empty(), DatabaseTicking.scheduledBy(ds), "stopped");
    }

    @Test
    void seesNothingWithoutPgCronOrWithoutTheRightToAsk() throws SQLException {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("dbticking").installEngine();
        assertEquals(Optional.empty(), DatabaseTicking.scheduledBy(db.superuser()), "no pg_cron on this server");
        exec(db.superuser(), "do $$ begin if not exists (select 1 from pg_roles where rolname = 'dbticking_reader')"
                + " then create role dbticking_reader login; end if; end $$");
        exec(db.superuser(), "grant pgque_reader to dbticking_reader");
        assertEquals(Optional.empty(), DatabaseTicking.scheduledBy(db.as("dbticking_reader")), "status() is admin-only");
    }
}

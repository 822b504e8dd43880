/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.probe;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What installing the engine needs, as the probe tells a user who asked a connector to install it:
 * CREATE on the database, and CREATEROLE where the engine's roles do not exist yet. A server of
 * its own, on which no engine was ever installed (roles are the cluster's, and the shared test
 * server has them).
 */
class InstallRightsIT {

    private static EmbeddedPostgres pg;

    @BeforeAll
    static void start() throws Exception {
        pg = EmbeddedPostgres.builder().setServerConfig("fsync", "off").start();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("create role install_it login");
            s.execute("revoke create on database postgres from public");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (pg != null) {
            pg.close();
        }
    }

    private static Optional<String> problem() throws Exception {
        ConnectionSettings settings = ConnectionSettings.from(new AbstractConfig(ConnectionConfigDef.addTo(new ConfigDef()),
                Map.of(ConnectionConfigDef.URL, pg.getJdbcUrl("install_it", "postgres")), false));
        try (DatabaseProbe probe = DatabaseProbe.open(settings, "install-it")) {
            return probe.installProblem("set pgque.schema.install=none");
        }
    }

    private static void asSuperuser(String sql) throws Exception {
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Test
    void theMessageNamesWhatIsMissingCreateAndCreaterole() throws Exception {
        String neither = problem().orElseThrow();
        assertTrue(neither.contains("CREATE on database 'postgres'") && neither.contains("CREATEROLE")
                && neither.contains("pgque_reader, pgque_writer, pgque_ticker, pgque_admin"), neither);

        asSuperuser("grant create on database postgres to install_it");
        String roles = problem().orElseThrow();
        assertTrue(roles.contains("CREATEROLE"), roles);
        assertFalse(roles.contains("CREATE on database"), roles);

        asSuperuser("alter role install_it createrole");
        assertEquals(Optional.empty(), problem(), "may install: nothing to report");
    }
}

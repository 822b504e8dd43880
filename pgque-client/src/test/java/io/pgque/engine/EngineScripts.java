/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** Install scripts for the upgrade tests: this build's, and the released ones kept beside these tests. */
final class EngineScripts {

    /** The release before this build's engine, which an upgrade replaces in place. */
    static final String LAST_RELEASE = "0.4.2";

    private EngineScripts() {
    }

    /** The script of release {@code version}, as it was released. */
    static String released(String version) {
        try (InputStream in = EngineScripts.class.getResourceAsStream("pgque-" + version + ".sql")) {
            if (in == null) {
                throw new IllegalStateException("no released script pgque-" + version + ".sql beside the tests");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code script} on a superuser connection to {@code db}, as {@code psql -f} would. */
    static void run(EmbeddedPg.TestDatabase db, String script) throws SQLException {
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute(script);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ticker;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * Whether the database ticks itself: {@code pgque.start()} scheduled the engine's ticker loop with
 * pg_cron, as {@code pgque.status()} reports it.
 */
final class DatabaseTicking {

    private DatabaseTicking() {
    }

    /** The scheduler's description when pg_cron ticks the database; empty otherwise or when unknown. */
    static Optional<String> scheduledBy(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(
                     "select detail from pgque.status() where component = 'scheduler' and status = 'pg_cron'")) {
            return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
        } catch (SQLException e) {
            // an engine without status(), or a role that may not call it: nothing to say
            return Optional.empty();
        }
    }
}

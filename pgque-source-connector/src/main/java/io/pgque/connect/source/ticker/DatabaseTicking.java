/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ticker;

import io.pgque.client.PgQue;
import io.pgque.client.PgQueException;

import javax.sql.DataSource;
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
        try {
            return PgQue.using(dataSource).operations().status().stream()
                    .filter(row -> row.component().equals("scheduler") && row.status().equals("pg_cron"))
                    .map(row -> "pg_cron, " + row.detail())
                    .findFirst();
        } catch (PgQueException e) {
            // an engine without status(), or a role that may not call it: nothing to say
            return Optional.empty();
        }
    }
}

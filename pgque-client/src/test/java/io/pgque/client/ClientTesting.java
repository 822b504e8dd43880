/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import javax.sql.DataSource;

/** Helpers shared by the client's integration tests. */
final class ClientTesting {

    static final Duration DEADLINE = Duration.ofSeconds(20);

    private ClientTesting() {
    }

    /**
     * A new database on the shared test server. Creates the JVM's temp directory first: the build
     * points {@code java.io.tmpdir} at {@code target/tmp}, which a clean checkout does not have, and
     * the embedded server unpacks itself there.
     */
    static EmbeddedPg.TestDatabase newDatabase(String prefix) {
        try {
            Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return EmbeddedPg.newDatabase(prefix);
    }

    /** Sends {@code events} events in one batch, payloads {@code prefix-i}, over 25 partition keys. */
    static void sendKeyed(PgQue pq, String queue, String prefix, int events) {
        List<Event> batch = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            batch.add(Event.of("t", prefix + "-" + i).withPartitionKey("key-" + (i % 25)));
        }
        pq.producer().sendBatch(queue, batch);
    }

    /** Makes the queue tick now: force, then tick, each in its own transaction. */
    static void tick(PgQue pq, String queue) {
        pq.operations().forceNextTick(queue);
        pq.operations().ticker(queue);
    }

    /** Ticks and receives until a batch arrives; fails after {@link #DEADLINE}. */
    static Batch awaitBatch(PgQue pq, String queue, String consumer) {
        return await("a batch for " + consumer + " on " + queue, () -> {
            tick(pq, queue);
            return pq.consumer().receive(queue, consumer);
        });
    }

    /** Polls {@code probe} until it yields a value; fails after {@link #DEADLINE}. */
    static <T> T await(String what, Supplier<Optional<T>> probe) {
        // Re-checked every 25 ms, up to the deadline.
        return Await.value(what, DEADLINE, Duration.ofMillis(25), probe);
    }

    /**
     * A login role granted {@code engineRole}. Roles are cluster-wide and the server is shared:
     * created once, and a previous run's role is reused.
     */
    static void loginRole(DataSource superuser, String role, String engineRole) {
        exec(superuser, "do $$ begin if not exists (select 1 from pg_roles where rolname = '" + role + "') "
                + "then create role " + role + " login; end if; end $$");
        exec(superuser, "grant " + engineRole + " to " + role);
    }

    /** Runs a fixed statement (test set-up only; never built from values). */
    static void exec(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** The single long value a query with bound parameters returns. */
    static long queryLong(DataSource ds, String sql, Object... params) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}

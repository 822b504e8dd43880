/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several sink tasks auto-create one queue at the same moment: every one of them must succeed,
 * and there must be one queue. The race is forced, not hoped for: the first creator holds its
 * transaction open until the seven others are all inside {@code create_queue}, waiting on it,
 * having found no committed queue; then it commits.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CreateQueueRaceIT {

    private static final int LATECOMERS = 7;
    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("createrace").installEngine().superuser());
    }

    @Test
    void eightSessionsCreatingOneQueueAtOnceAllSucceedAndOneQueueExists() throws Exception {
        String queue = "raced";
        ExecutorService pool = Executors.newFixedThreadPool(LATECOMERS);
        try (Connection first = sql.connect()) {
            first.setAutoCommit(false);
            assertEquals(1, createQueue(first, queue), "the first creator creates the queue");

            List<Future<Integer>> latecomers = new ArrayList<>();
            for (int i = 0; i < LATECOMERS; i++) {
                latecomers.add(pool.submit(() -> {
                    try (Connection c = sql.connect()) {
                        return createQueue(c, queue);
                    }
                }));
            }
            assertTrue(Sql.await(Duration.ofSeconds(60), Duration.ofMillis(20), () -> sql.oneLong(
                    "select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                            + " and query like '%create_queue%'") == LATECOMERS),
                    "the other sessions never all waited on the first creator");
            first.commit();

            for (Future<Integer> latecomer : latecomers) {
                assertEquals(0, latecomer.get(60, TimeUnit.SECONDS), "a later creator finds the queue there");
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1L, sql.oneLong("select count(*) from pgque.queue where queue_name = ?", queue));
        // The queue works: the losers left no half-made tables or sequences behind it.
        sql.subscribe(queue, "c");
        sql.send(queue, "after the race");
        sql.tick(queue);
        assertEquals(1, sql.drain(queue, "c").size());
    }

    private static int createQueue(Connection c, String queue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select pgque.create_queue(?)")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}

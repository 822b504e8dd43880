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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A consumer name is one row for all its queues. When its last subscription goes (an unsubscribe,
 * a forced drop_queue), the row goes too, unless another session is registering the name on
 * another queue at that moment, uncommitted: that session holds the row, and the one letting go
 * neither waits for it nor deletes the row it commits against. Under REPEATABLE READ, a
 * registration that committed after the dropper's snapshot is a serialization failure (40001),
 * which a retry of the whole transaction gets past.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConsumerForgetRaceIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("forgetrace").installEngine().superuser());
    }

    @Test
    void aForcedDropDoesNotWaitForNorBreakAnUncommittedRegistrationOfTheName() throws Exception {
        sql.createQueue("fr_target");
        sql.createQueue("fr_other");
        sql.subscribe("fr_target", "fr_c");
        sql.send("fr_target", "pending");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection registrar = sql.connect()) {
            registrar.setAutoCommit(false);
            exec(registrar, "select pgque.register_consumer('fr_other', 'fr_c')");
            // The dropper would wait for the registrar until it commits; a statement timeout turns
            // a wait into a failure of this test rather than a hang.
            Future<Integer> drop = pool.submit(() -> {
                try (Connection dropper = sql.connect(); Statement st = dropper.createStatement()) {
                    st.execute("set statement_timeout = '10s'");
                    try (ResultSet rs = st.executeQuery("select pgque.drop_queue('fr_target', true)")) {
                        rs.next();
                        return rs.getInt(1);
                    }
                }
            });
            assertEquals(1, drop.get(60, TimeUnit.SECONDS), "drop_queue returned while the registration was open");
            registrar.commit();
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, sql.oneLong("select count(*) from pgque.queue where queue_name = 'fr_target'"));
        assertEquals(1, sql.oneLong("select count(*) from pgque.get_consumer_info('fr_other', 'fr_c')"),
                "the registration on the other queue stands");
    }

    @Test
    void anUnsubscribeUnderRepeatableReadThatMissedARegistrationFailsToSerializeAndARetrySucceeds() throws Exception {
        sql.createQueue("fr_rr_a");
        sql.createQueue("fr_rr_b");
        sql.subscribe("fr_rr_a", "fr_rr_c");
        try (Connection leaver = sql.connect(); Connection registrar = sql.connect()) {
            leaver.setAutoCommit(false);
            exec(leaver, "set transaction isolation level repeatable read");
            exec(leaver, "select 1 from pgque.queue limit 1"); // the snapshot is taken here
            registrar.setAutoCommit(true);
            exec(registrar, "select pgque.register_consumer('fr_rr_b', 'fr_rr_c')");
            SQLException e = Sql.expectSqlState("40001", () -> exec(leaver, "select pgque.unregister_consumer('fr_rr_a', 'fr_rr_c')"));
            leaver.rollback();
            assertEquals("could not serialize access: a consumer was registered by a concurrent transaction",
                    e.getMessage().replaceAll("(?s)^ERROR: ([^\n]*).*$", "$1"));
            exec(leaver, "select pgque.unregister_consumer('fr_rr_a', 'fr_rr_c')");
            leaver.commit();
        }
        assertEquals(0, sql.oneLong("select count(*) from pgque.get_consumer_info('fr_rr_a', 'fr_rr_c')"));
        assertEquals(1, sql.oneLong("select count(*) from pgque.get_consumer_info('fr_rr_b', 'fr_rr_c')"),
                "the registration the retry saw keeps the consumer row");
    }

    private static void exec(Connection c, String statement) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(statement);
        }
    }
}

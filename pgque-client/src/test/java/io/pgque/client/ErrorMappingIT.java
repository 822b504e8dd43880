/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static io.pgque.client.ClientTesting.awaitBatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.testing.EmbeddedPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Each documented failure reaches the caller as its own exception type, with the database's words. */
class ErrorMappingIT {

    private static EmbeddedPg.TestDatabase db;
    private static PgQue pq;

    @BeforeAll
    static void setUp() {
        db = ClientTesting.newDatabase("client_errors").installEngine();
        pq = PgQue.using(db.superuser());
        pq.queues().create("q");
        pq.consumer().subscribe("q", "c");
        ClientTesting.loginRole(db.superuser(), "client_it_writer", "pgque_writer");
    }

    @Test
    void sendToUnknownQueue() {
        QueueNotFoundException e = assertThrows(QueueNotFoundException.class,
                () -> pq.producer().send("no_such_queue", "t", "x"));
        assertEquals("PQ001", e.sqlState());
        assertInstanceOf(SQLException.class, e.getCause());
        assertTrue(e.getMessage().contains("no_such_queue"), e.getMessage());
        assertTrue(e.getMessage().startsWith("send 1 event(s) to queue 'no_such_queue' failed: "), e.getMessage());
    }

    @Test
    void receiveAsUnknownConsumer() {
        ConsumerNotFoundException e = assertThrows(ConsumerNotFoundException.class,
                () -> pq.consumer().receive("q", "nobody"));
        assertEquals("PQ002", e.sqlState());
    }

    @Test
    void ackOfUnknownBatch() {
        assertThrows(BatchNotFoundException.class, () -> pq.consumer().ack(987_654_321L));
    }

    @Test
    void nackOfAMessageNotInTheBatch() {
        pq.producer().send("q", "t", "x");
        Batch batch = awaitBatch(pq, "q", "c");
        Message stranger = new Message(987_654_321L, batch.batchId(), "t", "x", 0, Instant.now(), null, null, null, null);
        MessageNotFoundException e = assertThrows(MessageNotFoundException.class,
                () -> pq.consumer().nack(stranger, Duration.ZERO, null));
        assertEquals("PQ008", e.sqlState());
        assertEquals("P0001", ((java.sql.SQLException) e.getCause()).getSQLState(),
                "raised as PgQue raises it; the code travels in the CONSTRAINT field");
        pq.consumer().ack(batch);
    }

    @Test
    void writerMayNotReceive() {
        PgQue writer = PgQue.using(db.as("client_it_writer"));
        writer.producer().send("q", "t", "a writer may send");
        PermissionDeniedException e = assertThrows(PermissionDeniedException.class,
                () -> writer.consumer().receive("q", "c"));
        assertEquals("42501", e.sqlState());
        assertThrows(PermissionDeniedException.class, () -> writer.queues().create("q_by_writer"));
    }

    @Test
    void tooLongQueueName() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> pq.queues().create("q".repeat(58)));
        assertEquals("22023", e.sqlState());
    }

    @Test
    void lostConnectionIsTransient() throws SQLException {
        DataSource ds = db.superuser();
        try (Connection victim = ds.getConnection()) {
            victim.setAutoCommit(false);
            PgQue onVictim = PgQue.using(victim);
            onVictim.operations().version();
            victim.rollback();
            int pid = victim.unwrap(PGConnection.class).getBackendPID();
            // waits (up to 5 s) until the backend is gone, so the next call surely meets a dead connection
            assertEquals(1, ClientTesting.queryLong(ds,
                    "select case when pg_terminate_backend(?, 5000) then 1 else 0 end", pid));
            PgQueException e = assertThrows(PgQueException.class, () -> onVictim.operations().version());
            assertTrue(e.isTransient(), "SQLSTATE " + e.sqlState() + " should be transient: " + e.getMessage());
        }
    }
}

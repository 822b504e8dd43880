/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static io.pgque.client.ClientTesting.awaitBatch;
import static io.pgque.client.ClientTesting.exec;
import static io.pgque.client.ClientTesting.queryLong;
import static io.pgque.client.ClientTesting.tick;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Operations on a caller-supplied connection join the caller's transaction, for better and worse. */
class CallerTransactionIT {

    private static DataSource ds;
    private static PgQue pq;

    @BeforeAll
    static void setUp() {
        ds = ClientTesting.newDatabase("client_caller_tx").installEngine().superuser();
        pq = PgQue.using(ds);
        exec(ds, "create table side_effect (msg_id bigint primary key, payload text)");
        exec(ds, "create table sink_offsets (topic text primary key, next_offset bigint)");
    }

    private static String queueWithConsumer(String queue) {
        pq.queues().create(queue);
        pq.consumer().subscribe(queue, "c");
        return queue;
    }

    @Test
    void sendRolledBackIsNeverDelivered() throws SQLException {
        String q = queueWithConsumer("q_rollback");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            PgQue tx = PgQue.using(c);
            tx.producer().send(q, "t", "rolled back");
            tx.producer().sendBatch(q, List.of(Event.of("also rolled back")));
            c.rollback();
            long kept = tx.producer().send(q, "t", "committed");
            c.commit();

            Batch batch = awaitBatch(pq, q, "c");
            assertEquals(List.of(kept), ids(batch));
            assertEquals("committed", batch.messages().get(0).payload());
            pq.consumer().ack(batch);
        }
    }

    @Test
    void eventsAndTheCallersOwnRowsCommitTogether() throws SQLException {
        String q = queueWithConsumer("q_sink_like");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            List<Long> ids = PgQue.using(c).producer().sendBatch(q, List.of(Event.of("a"), Event.of("b")));
            try (PreparedStatement ps = c.prepareStatement("insert into sink_offsets values (?, ?)")) {
                ps.setString(1, "topic-a");
                ps.setLong(2, 42);
                ps.executeUpdate();
            }
            tick(pq, q);
            assertTrue(pq.consumer().receive(q, "c").isEmpty(), "not visible before the caller commits");
            assertEquals(0, queryLong(ds, "select count(*) from sink_offsets"));
            c.commit();
            Batch batch = awaitBatch(pq, q, "c");
            assertEquals(sorted(ids), ids(batch));
            assertEquals(42, queryLong(ds, "select next_offset from sink_offsets where topic = ?", "topic-a"));
            pq.consumer().ack(batch);
        }
    }

    @Test
    void failedProcessingRollsBackTheAckAndTheBatchComesBack() {
        String q = queueWithConsumer("q_exactly_once");
        List<Long> sent = pq.producer().sendBatch(q, List.of(Event.of("one"), Event.of("two")));
        tick(pq, q);

        assertThrows(IllegalStateException.class, () -> pq.inTransaction((tx, c) -> {
            Batch batch = tx.consumer().receive(q, "c").orElseThrow();
            recordSideEffects(c, batch);
            tx.consumer().ack(batch);
            throw new IllegalStateException("crash after ack, before commit");
        }));
        assertEquals(0, queryLong(ds, "select count(*) from side_effect where msg_id = any(?)", (Object) sent.toArray(Long[]::new)));

        int processed = pq.inTransaction((tx, c) -> {
            Batch batch = tx.consumer().receive(q, "c").orElseThrow();
            assertEquals(sorted(sent), ids(batch), "the same events are delivered again");
            recordSideEffects(c, batch);
            tx.consumer().ack(batch);
            return batch.size();
        });
        assertEquals(2, processed);
        assertEquals(2, queryLong(ds, "select count(*) from side_effect where msg_id = any(?)", (Object) sent.toArray(Long[]::new)));
        tick(pq, q);
        assertTrue(pq.consumer().receive(q, "c").isEmpty(), "acked together with the side effects");
    }

    @Test
    void errorInsideTheCallersTransactionLeavesItToRollBack() throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            PgQue tx = PgQue.using(c);
            assertThrows(QueueNotFoundException.class, () -> tx.producer().send("no_such_queue", "t", "x"));
            assertTrue(!c.isClosed(), "the client does not close the caller's connection");
            c.rollback();
            assertEquals(PgQueInstaller.bundledVersion(), tx.operations().version());
            c.rollback();
        }
    }

    private static void recordSideEffects(Connection c, Batch batch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("insert into side_effect values (?, ?)")) {
            for (Message m : batch.messages()) {
                ps.setLong(1, m.msgId());
                ps.setString(2, m.payload());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static List<Long> sorted(List<Long> ids) {
        return ids.stream().sorted().collect(Collectors.toList());
    }

    /** Message ids of a batch, which come in msg_id order. */
    private static List<Long> ids(Batch batch) {
        return batch.messages().stream().map(Message::msgId).collect(Collectors.toList());
    }
}

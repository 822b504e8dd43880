/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static io.pgque.client.ClientTesting.await;
import static io.pgque.client.ClientTesting.awaitBatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Idempotent sends, one at a time and in batches. */
class IdempotentSendIT {

    private static final Duration HOUR = Duration.ofHours(1);

    private static DataSource ds;
    private static PgQue pq;

    @BeforeAll
    static void setUp() {
        ds = ClientTesting.newDatabase("client_idem").installEngine().superuser();
        pq = PgQue.using(ds);
    }

    private static String queueWithConsumer(String name) {
        pq.queues().create(name);
        pq.consumer().subscribe(name, "c");
        return name;
    }

    @Test
    void secondSendWithALiveKeyAppendsNothing() {
        String q = queueWithConsumer("q_idem");
        SendIdemResult first = pq.producer().sendIdem(q, IdempotentEvent.of("order-1:created",
                Event.of("t", "p1").withPartitionKey("cust-1")), HOUR);
        SendIdemResult again = pq.producer().sendIdem(q, IdempotentEvent.of("order-1:created",
                Event.of("t", "p1 resent")), HOUR);
        SendIdemResult other = pq.producer().sendIdem(q, IdempotentEvent.of("order-2:created",
                Event.of("t", "p2").withExtra3("x3")), HOUR);
        assertFalse(first.deduped());
        assertTrue(again.deduped());
        assertEquals(first.eventId(), again.eventId());
        assertFalse(other.deduped());
        assertNotEquals(first.eventId(), other.eventId());

        Batch batch = awaitBatch(pq, q, "c");
        assertEquals(2, batch.size());
        Message m1 = batch.messages().stream().filter(m -> m.msgId() == first.eventId().getAsLong()).findFirst().orElseThrow();
        assertEquals("p1", m1.payload());
        assertEquals("order-1:created", m1.idemKey());
        assertEquals("cust-1", m1.partitionKey());
        Message m2 = batch.messages().stream().filter(m -> m.msgId() == other.eventId().getAsLong()).findFirst().orElseThrow();
        assertEquals("x3", m2.extra3());
        assertEquals("order-2:created", m2.idemKey());
        pq.consumer().ack(batch);
    }

    @Test
    void batchResultsAreAlignedWithTheInput() {
        String q = queueWithConsumer("q_idem_batch");
        long earlier = pq.producer().sendIdem(q, IdempotentEvent.of("k2", Event.of("earlier")), HOUR)
                .eventId().getAsLong();
        List<SendIdemResult> results = pq.producer().sendIdemBatch(q, List.of(
                IdempotentEvent.of("k1", Event.of("t", "one").withPartitionKey("a")),
                IdempotentEvent.of("k2", Event.of("t", "two")),
                IdempotentEvent.of("k3", Event.of("t", "three").withExtra4("x4"))), HOUR);
        assertEquals(3, results.size());
        assertFalse(results.get(0).deduped());
        assertTrue(results.get(1).deduped());
        assertEquals(earlier, results.get(1).eventId().getAsLong());
        assertFalse(results.get(2).deduped());

        Batch batch = awaitBatch(pq, q, "c");
        assertEquals(3, batch.size(), "earlier, one, three");
        pq.consumer().ack(batch);
    }

    @Test
    void keyRepeatedWithinOneBatchIsSentOnce() {
        String q = queueWithConsumer("q_idem_repeat");
        List<SendIdemResult> results = pq.producer().sendIdemBatch(q, List.of(
                IdempotentEvent.of("same", Event.of("first")),
                IdempotentEvent.of("same", Event.of("second"))), HOUR);
        assertFalse(results.get(0).deduped());
        assertTrue(results.get(1).deduped());
        assertEquals(results.get(0).eventId(), results.get(1).eventId());
    }

    @Test
    void rollbackFreesTheKey() throws SQLException {
        String q = queueWithConsumer("q_idem_rollback");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertFalse(PgQue.using(c).producer().sendIdem(q, IdempotentEvent.of("k", Event.of("x")), HOUR).deduped());
            c.rollback();
        }
        assertFalse(pq.producer().sendIdem(q, IdempotentEvent.of("k", Event.of("x")), HOUR).deduped());
    }

    @Test
    void keyIsFreeAgainAfterItsWindow() {
        String q = queueWithConsumer("q_idem_ttl");
        Duration ttl = Duration.ofSeconds(1);
        long first = pq.producer().sendIdem(q, IdempotentEvent.of("k", Event.of("x")), ttl).eventId().getAsLong();
        SendIdemResult later = await("the key's window to end", () -> {
            SendIdemResult r = pq.producer().sendIdem(q, IdempotentEvent.of("k", Event.of("x")), ttl);
            return r.deduped() ? Optional.empty() : Optional.of(r);
        });
        assertNotEquals(first, later.eventId().getAsLong());
    }
}

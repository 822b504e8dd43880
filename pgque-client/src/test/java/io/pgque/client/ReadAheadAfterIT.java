/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static io.pgque.client.ClientTesting.tick;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.testing.EmbeddedPg;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reading two batches ahead ({@link SlotConsumer#readAheadPageAfter}, engine 0.3.4's
 * {@code read_ahead_after_query}): the batch after a batch read ahead is the batch the slot reads
 * once that one is open, it opens only in turn, and nothing is read for a batch that is no longer
 * open. The worker runs as a login role holding only {@code pgque_reader}, as the source
 * connector does.
 */
class ReadAheadAfterIT {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final int N = 2;
    private static final int SLOT = 0;

    private static EmbeddedPg.TestDatabase db;
    private static PgQue admin;
    private static PgQue reader;

    @BeforeAll
    static void setUp() {
        db = ClientTesting.newDatabase("client_read_ahead_after").installEngine();
        admin = PgQue.using(db.superuser());
        ClientTesting.loginRole(db.superuser(), "client_it_after", "pgque_reader");
        reader = PgQue.using(db.as("client_it_after"));
    }

    /** A slot of a two-slot consumer at its first batch, one tick a batch, and {@code ticks} ticks of 40 events after it. */
    private static Slot slotWithTicksAhead(PgQue pq, String q, int ticks) {
        admin.queues().create(q);
        SlotConsumer w = pq.slotConsumer(q, "g", N, "w").catchingUp(1);
        admin.slotConsumer(q, "g", N, "setup").subscribe();
        sendKeyed(q, "tick0", 40);
        tick(admin, q);
        for (int t = 1; t <= ticks; t++) {
            sendKeyed(q, "tick" + t, 40);
            tick(admin, q);
        }
        w.slot(SLOT).claim(TTL).orElseThrow();
        return new Slot(w, w.slot(SLOT).receive().orElseThrow());
    }

    private record Slot(SlotConsumer consumer, Batch open) {
    }

    /** A slot at its first batch, its next batch read ahead and the one after that. */
    private record TwoAhead(SlotConsumer consumer, Batch open, ReadAhead next, ReadAhead afterNext) {
    }

    private static TwoAhead readTwoAhead(String q, int ticks) {
        Slot s = slotWithTicksAhead(reader, q, ticks);
        SlotConsumer w = s.consumer();
        ReadAhead next = w.slot(SLOT).readAheadPage(s.open().batchId(), 1_000).orElseThrow();
        ReadAhead afterNext = w.slot(SLOT).readAheadPageAfter(s.open().batchId(), next, 1_000).orElseThrow();
        return new TwoAhead(w, s.open(), next, afterNext);
    }

    private static void sendKeyed(String q, String prefix, int events) {
        ClientTesting.sendKeyed(admin, q, prefix, events);
    }

    private static List<String> payloads(ReadAhead ahead) {
        return payloads(ahead.batch().first().messages());
    }

    private static List<String> payloads(List<Message> messages) {
        return messages.stream().map(Message::payload).toList();
    }

    @Test
    void theBatchAfterABatchReadAheadIsTheOneTheSlotReadsOnceThatOneIsOpen() {
        TwoAhead s = readTwoAhead("q_after_turn", 3);
        SlotConsumer w = s.consumer();
        ReadAhead next = s.next();
        ReadAhead afterNext = s.afterNext();
        assertEquals(next.toTick(), afterNext.fromTick(), "it starts where the batch read ahead ends");
        assertNotEquals(next.batchId(), afterNext.batchId());
        assertTrue(payloads(next).stream().allMatch(p -> p.startsWith("tick1-")), payloads(next).toString());
        assertTrue(payloads(afterNext).stream().allMatch(p -> p.startsWith("tick2-")), payloads(afterNext).toString());
        assertFalse(payloads(afterNext).isEmpty());

        assertTrue(w.slot(SLOT).afterAck(s.open().batchId()).open(next));
        ReadAhead readInTurn = w.slot(SLOT).readAheadPage(next.batchId(), 1_000).orElseThrow();
        assertEquals(payloads(readInTurn), payloads(afterNext), "the same events as a read once the batch before is open");
        assertEquals(readInTurn.fromTick(), afterNext.fromTick());
        assertEquals(readInTurn.toTick(), afterNext.toTick());

        assertTrue(w.slot(SLOT).afterAck(next.batchId()).open(afterNext), "opened in turn, as read");
        Batch opened = w.slot(SLOT).receive().orElseThrow();
        assertEquals(afterNext.batchId(), opened.batchId());
        assertEquals(payloads(afterNext), payloads(opened.messages()));
        for (Message m : opened.messages()) {
            assertEquals(SLOT, w.slotOf(m.partitionKey()), "only the slot's own events");
        }
    }

    @Test
    void aBatchReadTwoAheadDoesNotOpenOutOfTurnAndNothingIsSkipped() {
        TwoAhead s = readTwoAhead("q_after_order", 2);
        SlotConsumer w = s.consumer();

        assertFalse(w.slot(SLOT).afterAck(s.open().batchId()).open(s.afterNext()),
                "the slot stands at the tick before it");
        Batch received = w.slot(SLOT).receive().orElseThrow();
        assertEquals(payloads(s.next()), payloads(received.messages()), "the skipped window comes next, whole");
    }

    @Test
    void nothingIsReadForABatchNoLongerOpenOrAfterTheLastTick() {
        Slot s = slotWithTicksAhead(reader, "q_after_none", 1);
        SlotConsumer w = s.consumer();
        ReadAhead next = w.slot(SLOT).readAheadPage(s.open().batchId(), 1_000).orElseThrow();
        assertTrue(w.slot(SLOT).readAheadPageAfter(s.open().batchId(), next, 1_000).isEmpty(), "no tick after it yet");

        assertTrue(w.slot(SLOT).afterAck(s.open().batchId()).open(next));
        sendKeyed("q_after_none", "tick2", 40);
        tick(admin, "q_after_none");
        assertTrue(w.slot(SLOT).readAheadPageAfter(s.open().batchId(), next, 1_000).isEmpty(),
                "the batch named is no longer the open one");
        assertTrue(w.slot(SLOT).readAheadPageAfter(next.batchId(), next, 1_000).isPresent(),
                "from the open batch's own end it is the next batch");
    }

    @Test
    void aTickBeforeTheOpenBatchsEndIsRefused() throws SQLException {
        Slot s = slotWithTicksAhead(reader, "q_after_refused", 1);
        ReadAhead next = s.consumer().slot(SLOT).readAheadPage(s.open().batchId(), 1_000).orElseThrow();
        try (Connection c = db.as("client_it_after").getConnection();
             PreparedStatement ps = c.prepareStatement("select * from pgque.read_ahead_after_query("
                     + "'q_after_refused', 'g', 0, 2, ?, ?, ?, 1, 100, NULL)")) {
            ps.setString(1, s.consumer().leaseId());
            ps.setLong(2, s.open().batchId());
            ps.setLong(3, next.fromTick() - 1);
            SQLException e = assertThrows(SQLException.class, ps::executeQuery);
            assertEquals("22023", e.getSQLState());
            assertTrue(e.getMessage().contains("is before the end of open batch"), e.getMessage());
        }
    }

    @Test
    void aGroupReadsTheWindowAfterOnceForAllItsSlots() {
        String q = "q_after_group";
        admin.queues().create(q);
        SlotConsumer w = reader.slotConsumer(q, "g", N, "w").catchingUp(1);
        admin.slotConsumer(q, "g", N, "setup").subscribe();
        for (int t = 0; t < 3; t++) {
            sendKeyed(q, "tick" + t, 40);
            tick(admin, q);
        }
        Map<Integer, Long> open = new HashMap<>();
        for (int slot = 0; slot < N; slot++) {
            w.slot(slot).claim(TTL).orElseThrow();
            open.put(slot, w.slot(slot).receive().orElseThrow().batchId());
        }
        ReadAheadGroup group = w.readAheadGroup(List.of(0, 1));
        int total = 0;
        for (int slot = 0; slot < N; slot++) {
            ReadAhead next = w.slot(slot).readAheadPage(open.get(slot), 1_000).orElseThrow();
            ReadAhead alone = w.slot(slot).readAheadPageAfter(open.get(slot), next, 1_000).orElseThrow();
            ReadAhead shared = group.readAheadPageAfter(slot, open.get(slot), next, 1_000).orElseThrow();
            assertEquals(payloads(alone), payloads(shared), "slot " + slot);
            assertEquals(slot == 1, shared.shared(), "the second slot is served from the first one's scan");
            total += shared.batch().first().messages().size();
        }
        assertEquals(40, total, "every event of the window once, in its own slot");
        assertEquals(1, group.scanned());
        assertEquals(1, group.served());
    }

    /**
     * Every page read ahead goes through read_ahead_after_query (0.3.4): an engine before it, outside
     * the connectors' promise, reads nothing ahead, and its batches are received as usual.
     */
    @Test
    void anEngineWithoutTheFunctionReadsNothingAhead() {
        EmbeddedPg.TestDatabase older = ClientTesting.newDatabase("client_read_ahead_after_old").installEngine();
        ClientTesting.exec(older.superuser(), "drop function pgque.read_ahead_after_query(text, text, int, int, text, "
                + "bigint, bigint, bigint, int, int[])");
        ClientTesting.exec(older.superuser(), "update pgque.engine_info set engine_version = '0.3.3'");
        PgQue pq = PgQue.using(older.superuser());
        String q = "q_after_old";
        pq.queues().create(q);
        SlotConsumer w = pq.slotConsumer(q, "g", N, "w").catchingUp(1);
        w.subscribe();
        for (int t = 0; t < 3; t++) {
            ClientTesting.sendKeyed(pq, q, "tick" + t, 40);
            tick(pq, q);
        }
        w.slot(SLOT).claim(TTL).orElseThrow();
        Batch open = w.slot(SLOT).receive().orElseThrow();
        assertTrue(w.slot(SLOT).readAheadPage(open.batchId(), 1_000).isEmpty(), "nothing is read ahead");
        assertTrue(w.slot(SLOT).ack(open.batchId()));
        assertTrue(w.slot(SLOT).receive().isPresent(), "the next batch is received once the open one is acked");
    }
}

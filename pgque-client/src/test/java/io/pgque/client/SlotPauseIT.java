/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static io.pgque.client.ClientTesting.tick;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pause failure policy through the client: {@link Slot#pause} blocks a key until the paused
 * message is acked after its redelivery or dead-lettered, {@link PausedKeys} skips the key's later
 * messages of the batch in hand, {@link SlotConsumer#blockedKeys} lists blocked keys with since
 * when, and the operator's calls release a key.
 */
class SlotPauseIT {

    private static final Duration TTL = Duration.ofSeconds(30);

    private static PgQue pq;

    @BeforeAll
    static void setUp() {
        DataSource ds = ClientTesting.newDatabase("client_pause").installEngine().superuser();
        pq = PgQue.using(ds);
    }

    private static SlotConsumer consumer(String q) {
        pq.queues().create(q);
        SlotConsumer c = pq.slotConsumer(q, "g", 1, "w");
        c.subscribe();
        c.slot(0).claim(TTL).orElseThrow();
        return c;
    }

    private static void send(String q, String... payloads) {
        for (String p : payloads) {
            pq.producer().send(q, Event.of("t", p).withPartitionKey(p.substring(0, p.indexOf('-'))));
        }
    }

    /** Handles a batch: every message whose payload is in {@code failing} is paused; returns what was handled. */
    private static List<String> handle(Slot slot, Batch batch, List<String> failing) {
        PausedKeys paused = new PausedKeys();
        List<String> handled = new ArrayList<>();
        for (Message m : batch.messages()) {
            if (paused.heldBack(m)) {
                continue;
            }
            if (failing.contains(m.payload())) {
                paused.pause(slot, m, Duration.ZERO, "cannot handle " + m.payload());
            } else {
                handled.add(m.payload());
            }
        }
        assertTrue(slot.ack(batch.batchId()));
        return handled;
    }

    private static Batch next(String q, Slot slot) {
        tick(pq, q);
        return slot.receive().orElseThrow();
    }

    @Test
    void aPausedKeyWaitsInOrderWhileTheOthersFlowAndResumesOnItsAck() {
        String q = "pause_client_1";
        SlotConsumer c = consumer(q);
        Slot slot = c.slot(0);
        send(q, "a-1", "b-1", "a-2", "b-2");
        assertEquals(List.of("b-1", "b-2"), handle(slot, next(q, slot), List.of("a-1")));

        BlockedKey blocked = c.blockedKeys().get(0);
        assertEquals("a", blocked.partitionKey());
        assertEquals(0, blocked.slot());
        assertEquals(1, blocked.n());
        assertEquals("retrying", blocked.state());
        assertEquals(1, blocked.retryCount());
        assertEquals(1, blocked.setAside());
        assertEquals("cannot handle a-1", blocked.reason());
        assertTrue(blocked.blockedFor(Instant.now().plusSeconds(1)).compareTo(Duration.ZERO) > 0);

        send(q, "a-3", "b-3");
        assertEquals(List.of("b-3"), handle(slot, next(q, slot), List.of()));
        pq.operations().maintRetryEvents();
        assertEquals(List.of("a-1"), handle(slot, next(q, slot), List.of()));
        send(q, "a-4");
        assertEquals(List.of("a-2", "a-3", "a-4"), handle(slot, next(q, slot), List.of()));
        assertEquals(List.of(), c.blockedKeys());
    }

    @Test
    void anOperatorReleasesABlockedKey() {
        String q = "pause_client_2";
        SlotConsumer c = consumer(q);
        Slot slot = c.slot(0);
        send(q, "a-1", "a-2");
        Batch b = next(q, slot);
        assertTrue(slot.pause(b.messages().get(0), Duration.ofHours(1), null));
        assertTrue(slot.ack(b.batchId()));
        assertNull(c.blockedKeys().get(0).reason());
        assertTrue(c.retryBlockedKey("a"));
        assertTrue(c.blockedKeys().get(0).retryAfter().isBefore(Instant.now().plusSeconds(60)));
        assertEquals(b.messages().get(0).msgId(), c.deadLetterBlockedKey("a", "operator: bad data"));
        assertEquals("resuming", c.blockedKeys().get(0).state());
        assertEquals(List.of("a-2"), handle(slot, next(q, slot), List.of()));
        assertEquals(List.of(), c.blockedKeys());
        assertThrows(InvalidArgumentException.class, () -> c.retryBlockedKey("a"));
        assertThrows(InvalidArgumentException.class, () -> c.deadLetterBlockedKey("a", "why"));
    }

    @Test
    void badPausesAreRefusedWithTheClientsExceptions() {
        String q = "pause_client_3";
        SlotConsumer c = consumer(q);
        Slot slot = c.slot(0);
        pq.producer().send(q, Event.of("t", "keyless"));
        send(q, "a-1", "a-2");
        Batch b = next(q, slot);
        Message keyless = b.messages().get(0);
        assertThrows(InvalidArgumentException.class, () -> slot.pause(keyless, Duration.ZERO, null));
        assertTrue(slot.pause(b.messages().get(1), Duration.ZERO, null));
        assertThrows(MessageNotFoundException.class, () -> slot.pause(b.messages().get(2), Duration.ZERO, null),
                "a-2 is set aside, no longer in the batch");
        SlotConsumer intruder = pq.slotConsumer(q, "g", 1, "intruder");
        assertThrows(SlotFencedException.class, () -> intruder.slot(0).pause(b.messages().get(1), Duration.ZERO, null));
        assertTrue(slot.ack(b.batchId()));
        assertThrows(BatchNotFoundException.class, () -> slot.pause(b.messages().get(1), Duration.ZERO, null));
        PausedKeys paused = new PausedKeys();
        assertFalse(paused.heldBack(b.messages().get(1)));
    }
}

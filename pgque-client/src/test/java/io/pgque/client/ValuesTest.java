/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValuesTest {

    @Test
    void eventBuildersKeepEveryField() {
        Event e = Event.of("t", "p").withPartitionKey("k").withExtra2("x2").withExtra3("x3").withExtra4("x4");
        assertEquals(new Event("t", "p", "k", "x2", "x3", "x4"), e);
        assertNull(Event.of("p").type());
        assertEquals("u", e.withType("u").type());
    }

    @Test
    void idempotentEventRefusesExtra2BecauseTheKeyGoesThere() {
        assertThrows(IllegalArgumentException.class,
                () -> IdempotentEvent.of("k", Event.of("p").withExtra2("x")));
        assertThrows(NullPointerException.class, () -> IdempotentEvent.of(null, Event.of("p")));
    }

    @Test
    void batchIsImmutableAndNeverEmpty() {
        List<Message> source = new ArrayList<>();
        source.add(message(1));
        Batch b = new Batch(7, source);
        source.add(message(2));
        assertEquals(1, b.size());
        assertThrows(UnsupportedOperationException.class, () -> b.messages().add(message(3)));
        assertThrows(IllegalArgumentException.class, () -> new Batch(7, List.of()));
    }

    @Test
    void messageConventions() {
        Message m = new Message(1, 2, "t", "p", 0, Instant.EPOCH, "key", "idem", null, null);
        assertEquals("key", m.partitionKey());
        assertEquals("idem", m.idemKey());
        assertFalse(m.isRetry());
        assertTrue(new Message(1, 2, "t", "p", 1, Instant.EPOCH, null, null, null, null).isRetry());
    }

    @Test
    void intervalsAreBoundAsNumbersOrPlainSeconds() {
        assertEquals(2.5, Intervals.seconds(Duration.ofMillis(2500)));
        assertEquals("2.5 seconds", Intervals.text(Duration.ofMillis(2500)));
        assertEquals("60 seconds", Intervals.text(Duration.ofMinutes(1)));
        assertEquals("0.000001 seconds", Intervals.text(Duration.ofNanos(1000)));
        assertEquals("0 seconds", Intervals.text(Duration.ZERO));
    }

    static Message message(long id) {
        return new Message(id, 7, "t", "p" + id, 0, Instant.EPOCH, null, null, null, null);
    }
}

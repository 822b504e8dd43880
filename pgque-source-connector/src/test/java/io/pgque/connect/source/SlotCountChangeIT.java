/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.ResizeState;
import io.pgque.connect.source.resize.SlotCountChange;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a connector start does with the configured N against the engine's state, including a
 * start after a connector was deleted or failed in the middle of a resize: a new consumer is
 * subscribed, another N begins a resize, the same target carries it on (same seal), the old N
 * aborts it, a third N aborts it and begins a new one.
 */
class SlotCountChangeIT {

    private static QueueFixture pg;

    @BeforeAll
    static void database() {
        pg = new QueueFixture("slot_count_change");
    }

    private static ResizeState state(String queue) {
        return pg.pgque.slotResize(queue, "c").state().orElseThrow();
    }

    @Test
    void aNewConsumerIsSubscribedAndTheSameNChangesNothing() {
        pg.createQueue("fresh");
        SlotCountChange.apply(pg.pgque, "fresh", "c", 4);
        SlotCountChange.apply(pg.pgque, "fresh", "c", 4);
        assertFalse(state("fresh").draining());
        assertEquals(4, state("fresh").n());
    }

    @Test
    void aRestartWithTheNewNCarriesTheResizeOn() {
        pg.createQueue("carry");
        SlotCountChange.apply(pg.pgque, "carry", "c", 4);
        SlotCountChange.apply(pg.pgque, "carry", "c", 8);
        long seal = state("carry").sealTick();
        SlotCountChange.apply(pg.pgque, "carry", "c", 8); // the connector came back after a delete or failure
        assertTrue(state("carry").draining());
        assertEquals(8, state("carry").newN());
        assertEquals(seal, state("carry").sealTick(), "the same resize, not a new one");
    }

    @Test
    void aRestartWithTheOldNAbortsTheResize() {
        pg.createQueue("back");
        SlotCountChange.apply(pg.pgque, "back", "c", 4);
        SlotCountChange.apply(pg.pgque, "back", "c", 8);
        SlotCountChange.apply(pg.pgque, "back", "c", 4);
        assertFalse(state("back").draining());
        assertEquals(4, state("back").n());
        assertEquals(0, state("back").resizeEpoch());
        assertEquals(4L, pg.queryLong("select count(*) from pgque.partition_slot_status where queue_name = 'back'"),
                "the new slots are gone");
    }

    @Test
    void aRestartWithAThirdNAbortsAndBeginsAgain() {
        pg.createQueue("third");
        SlotCountChange.apply(pg.pgque, "third", "c", 4);
        SlotCountChange.apply(pg.pgque, "third", "c", 8);
        long firstSeal = state("third").sealTick();
        SlotCountChange.apply(pg.pgque, "third", "c", 6);
        assertTrue(state("third").draining());
        assertEquals(4, state("third").n());
        assertEquals(6, state("third").newN());
        assertTrue(state("third").sealTick() > firstSeal, "a new seal");
        assertEquals(10L, pg.queryLong("select count(*) from pgque.partition_slot_status where queue_name = 'third'"),
                "the 4 old slots and the 6 new ones");
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.stream.LaneChange.AckAfterTick;
import io.pgque.connect.source.stream.LaneChange.Acked;
import io.pgque.connect.source.stream.LaneChange.Claimed;
import io.pgque.connect.source.stream.LaneChange.FoundNothing;
import io.pgque.connect.source.stream.LaneChange.Lost;
import io.pgque.connect.source.stream.LaneChange.SentAheadOpened;
import io.pgque.connect.source.stream.LaneChange.Started;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static io.pgque.connect.source.stream.ReaderState.DELIVERED;
import static io.pgque.connect.source.stream.ReaderState.RESTING;
import static io.pgque.connect.source.stream.ReaderState.STREAMING;
import static io.pgque.connect.source.stream.ReaderState.UNLEASED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The table of a lane's changes: every change has its row, and a change from a state outside it is refused. */
class LaneTest {

    @Test
    void everyChangeHasARowInTheTable() {
        Arrays.stream(LaneChange.class.getPermittedSubclasses()).forEach(change ->
                assertTrue(Lane.FROM.containsKey(change), change.getSimpleName() + " has no row"));
        assertEquals(LaneChange.class.getPermittedSubclasses().length, Lane.FROM.size());
    }

    @Test
    void aChangeFromAStateOutsideItsRowIsRefusedAndChangesNothing() {
        Lane lane = new Lane(new FakeReader(0));
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> lane.apply(new Started(batch(), false, Lane.TICKS_UNKNOWN, 0)));
        assertTrue(refused.getMessage().contains("Started cannot come from UNLEASED"), refused.getMessage());
        assertThrows(IllegalStateException.class, () -> lane.apply(new Acked(0, 0)));
        assertEquals(UNLEASED, lane.state());

        lane.apply(new Claimed(7));
        assertEquals(RESTING, lane.state());
        assertTrue(lane.needsDeliveryCheck(), "a new lease checks its first batch against Kafka");
        assertThrows(IllegalStateException.class, () -> lane.apply(new Claimed(8)));
        assertThrows(IllegalStateException.class, () -> lane.apply(new AckAfterTick(9)));
        assertEquals(7, lane.nextRenewalNanos());
    }

    @Test
    void aBatchGoesFromRestingThroughDeliveredBackToResting() {
        Lane lane = new Lane(new FakeReader(0));
        lane.apply(new Claimed(1));
        lane.apply(new FoundNothing(2, 3));
        assertEquals(RESTING, lane.state());
        assertEquals(3, lane.nextAttemptNanos());

        StreamedBatch batch = batch();
        lane.apply(new Started(batch, true, 5, 4));
        assertEquals(STREAMING, lane.state());
        assertFalse(lane.needsDeliveryCheck(), "checked as the batch was opened");
        assertTrue(lane.behind());
        assertEquals(5, lane.ticksBeforeOpen());

        batch.lastChunkTaken(); // nothing was handed over: Kafka has all of it
        assertEquals(DELIVERED, lane.state());
        assertThrows(IllegalStateException.class, () -> lane.apply(new SentAheadOpened(6)),
                "nothing was sent ahead");
        lane.apply(new AckAfterTick(10));
        assertTrue(lane.ackWaitsForTick());
        lane.apply(new Acked(11, 12));
        assertEquals(RESTING, lane.state());
        assertFalse(lane.ackWaitsForTick());
        assertEquals(11, lane.nextAttemptNanos());
        assertEquals(12, lane.nextRenewalNanos());
    }

    @Test
    void losingTheLeaseGivesBackWhatWasReadAhead() {
        FakeReader reader = new FakeReader(0).readingAhead(9);
        reader.batch(2);
        Lane lane = new Lane(reader);
        lane.apply(new Claimed(1));
        lane.apply(new Started(batch(), false, Lane.TICKS_UNKNOWN, 2));
        lane.ahead().start(1, false, null, () -> { });
        reader.ahead.finish();
        assertTrue(lane.ahead().held());

        lane.apply(new Lost(3));
        assertEquals(UNLEASED, lane.state());
        assertFalse(lane.ahead().held());
        assertEquals(1, reader.ahead.discarded, "the batch read ahead is given back");
    }

    private static StreamedBatch batch() {
        return new StreamedBatch(1, 10, () -> { });
    }
}

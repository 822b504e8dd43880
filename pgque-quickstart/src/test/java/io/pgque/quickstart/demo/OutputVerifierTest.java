/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgque.quickstart.report.QueuedAt;
import io.pgque.quickstart.report.Stages;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class OutputVerifierTest {

    private final OutputVerifier verifier = new OutputVerifier("run1");

    @Test
    void inOrderDeliveryPerTenantIsCountedOnceEach() {
        deliver("a", 0, 1000, 1500);
        deliver("b", 0, 1000, 1300);
        deliver("a", 1, 1100, 1700);
        deliver("b", 1, 1100, 1900);
        OutputVerifier.Snapshot s = verifier.snapshot();
        assertEquals(4, s.delivered());
        assertEquals(0, s.outOfOrder());
        assertEquals(0, s.duplicates());
        assertEquals(2, s.tenantsSeen());
        assertEquals(1500, s.firstReceiveMicros());
        assertEquals(1900, s.lastReceiveMicros());
    }

    @Test
    void tenantsMayInterleaveFreely() {
        deliver("b", 0, 0, 1);
        deliver("a", 0, 0, 2);
        deliver("b", 1, 0, 3);
        deliver("a", 1, 0, 4);
        assertEquals(0, verifier.snapshot().outOfOrder());
    }

    @Test
    void anEventOvertakenByALaterOneOfItsTenantIsOutOfOrder() {
        deliver("a", 0, 0, 1);
        deliver("a", 2, 0, 2);
        deliver("a", 1, 0, 3);
        OutputVerifier.Snapshot s = verifier.snapshot();
        assertEquals(3, s.delivered());
        assertEquals(1, s.outOfOrder());
    }

    @Test
    void aReplayedSuffixIsDuplicatesNotDisorder() {
        deliver("a", 0, 0, 1);
        deliver("a", 1, 0, 2);
        deliver("a", 2, 0, 3);
        // at-least-once: after a failure the last batch comes again
        deliver("a", 1, 0, 4);
        deliver("a", 2, 0, 5);
        deliver("a", 3, 0, 6);
        OutputVerifier.Snapshot s = verifier.snapshot();
        assertEquals(4, s.delivered());
        assertEquals(2, s.duplicates());
        assertEquals(0, s.outOfOrder());
    }

    @Test
    void otherRunsAreIgnored() {
        verifier.accept(new LifecycleEvent("old-run", "a", 5, FileEventType.FileCreated, "f", 0), 10, OptionalLong.empty());
        deliver("a", 0, 0, 11);
        assertEquals(1, verifier.snapshot().delivered());
        assertEquals(0, verifier.snapshot().outOfOrder());
        assertEquals(1, verifier.snapshot().tenantsSeen());
    }

    @Test
    void latencyIsReceiveMinusSendOfFirstDeliveries() {
        deliver("a", 0, 1_000, 3_000);
        deliver("a", 1, 1_000, 5_000);
        deliver("a", 1, 1_000, 900_000);
        assertEquals(2_000, verifier.latencyPercentile(50));
        assertEquals(4_000, verifier.latencyPercentile(99));
        assertEquals(-1, new OutputVerifier("x").latencyPercentile(50));
    }

    @Test
    void theLatencyIsSplitAtTheQueueForFirstDeliveriesTheDatabaseKnows() {
        deliver("a", 0, 1_000, 3_000);
        deliver("a", 1, 1_000, 5_000);
        deliver("a", 1, 1_000, 900_000);
        deliver("a", 2, 1_000, 7_000);
        // Event 2 is no longer in the queue's tables: left out of the split. Event 1 has no tick
        // yet: it counts into the queue only.
        Optional<Stages> stages = verifier.deliveries().stages(ids -> Map.of(
                0L, new QueuedAt(1_500, 2_500), 1L, new QueuedAt(2_000, -1)));
        assertEquals(Optional.of(new Stages(new Stages.Part(500, 1_000), new Stages.Part(1_000, 1_000),
                new Stages.Part(500, 500))), stages);
        assertEquals(Optional.empty(), verifier.deliveries().stages(ids -> Map.of()));
    }

    private void deliver(String tenant, long seq, long sentAt, long receivedAt) {
        verifier.accept(new LifecycleEvent("run1", tenant, seq, FileEventType.FileOverwritten, "f", sentAt), receivedAt,
                OptionalLong.of(seq));
    }
}

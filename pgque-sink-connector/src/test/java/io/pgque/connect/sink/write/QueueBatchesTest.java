/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.pgque.connect.sink.write.Drafts.pending;
import static org.junit.jupiter.api.Assertions.assertEquals;

class QueueBatchesTest {

    @Test
    void groupsByQueueKeepingInputOrderAndCutsChunks() {
        List<PendingEvent> events = new ArrayList<>();
        for (long offset = 0; offset < 5; offset++) {
            events.add(pending("a", "t1", 0, offset));
            events.add(pending("b", "t2", 1, offset));
        }
        QueueBatches batches = QueueBatches.of(events, 2);

        assertEquals(List.of("a", "b"), batches.queues());
        assertEquals(10, batches.eventCount());
        assertEquals(List.of("a", "a", "a", "b", "b", "b"), batches.chunks().stream().map(QueueBatches.Chunk::queue).toList());
        assertEquals(List.of(2, 2, 1, 2, 2, 1), batches.chunks().stream().map(c -> c.events().size()).toList());
        List<Long> offsetsOfA = batches.chunks().stream().filter(c -> c.queue().equals("a"))
                .flatMap(c -> c.events().stream()).map(e -> e.record().kafkaOffset()).toList();
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), offsetsOfA, "offset order within a partition survives grouping");
    }

    @Test
    void oneChunkPerQueueWhenTheBatchFits() {
        QueueBatches batches = QueueBatches.of(List.of(pending("a", "t", 0, 1), pending("a", "t", 0, 2)), 500);
        assertEquals(1, batches.chunks().size());
    }

    @Test
    void offsetRangesNameEveryPartition() {
        QueueBatches batches = QueueBatches.of(List.of(pending("a", "t", 0, 7), pending("a", "t", 0, 9),
                pending("a", "t", 1, 3)), 500);
        assertEquals("t-0 offsets 7..9, t-1 offset 3", OffsetRanges.describe(batches));
    }
}

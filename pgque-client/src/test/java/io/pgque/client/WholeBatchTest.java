/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class WholeBatchTest {

    /** A batch of {@code size} messages with ids 10, 20, 30, ... served page by page. */
    private static final class FakeBatch {
        final List<Message> all;
        final List<Long> afterIds = new ArrayList<>();

        FakeBatch(int size) {
            all = LongStream.rangeClosed(1, size).mapToObj(i -> ValuesTest.message(i * 10)).collect(Collectors.toList());
        }

        List<Message> first(int max) {
            return all.subList(0, Math.min(max, all.size()));
        }

        List<Message> rest(long batchId, long after) {
            assertEquals(7, batchId);
            afterIds.add(after);
            return all.stream().filter(m -> m.msgId() > after).collect(Collectors.toList());
        }

        Optional<Batch> read(int pageSize) throws Exception {
            return WholeBatch.read(pageSize, this::first, this::rest);
        }
    }

    @Test
    void aFullFirstPageIsFollowedByOneReadOfAllTheRest() throws Exception {
        FakeBatch b = new FakeBatch(25);
        Batch batch = b.read(10).orElseThrow();
        assertEquals(b.all, batch.messages());
        assertEquals(7, batch.batchId());
        assertEquals(List.of(100L), b.afterIds, "one more read, however long the batch: each read scans the window");
    }

    @Test
    void exactlyOnePageStillAsksForTheRest() throws Exception {
        FakeBatch b = new FakeBatch(10);
        assertEquals(10, b.read(10).orElseThrow().size());
        assertEquals(List.of(100L), b.afterIds);
    }

    @Test
    void shortFirstPageNeedsNoMoreReads() throws Exception {
        FakeBatch b = new FakeBatch(3);
        assertEquals(3, b.read(10).orElseThrow().size());
        assertTrue(b.afterIds.isEmpty());
    }

    @Test
    void noEventsMeansNoBatch() throws Exception {
        assertTrue(new FakeBatch(0).read(10).isEmpty());
    }

    @Test
    void pageSizeMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> WholeBatch.checkPageSize(0));
    }
}

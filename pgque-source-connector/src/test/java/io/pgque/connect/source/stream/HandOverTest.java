/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.delivery.BatchBoundary;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.TransactionContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The three ways a poll hands over the chunks of several readers, and where their transactions end. */
class HandOverTest {

    /** Where the task draws the transactions: what the worker was told. */
    private static final class Drawn implements TransactionContext {
        final List<Object> commits = new ArrayList<>();

        @Override
        public void commitTransaction() {
            commits.add("poll");
        }

        @Override
        public void commitTransaction(SourceRecord record) {
            commits.add(record);
        }

        @Override
        public void abortTransaction() {
            throw new AssertionError("the task never aborts");
        }

        @Override
        public void abortTransaction(SourceRecord record) {
            throw new AssertionError("the task never aborts");
        }
    }

    private static Harness twoReaders(HandOver.Kind kind, BatchBoundary boundary, int events0, int events1) {
        FakeReader a = new FakeReader(0);
        FakeReader b = new FakeReader(1);
        if (events0 > 0) {
            a.batch(events0);
        }
        if (events1 > 0) {
            b.batch(events1);
        }
        return new Harness(List.of(a, b), kind, boundary, Duration.ofHours(1), true);
    }

    private static long fromReader(List<SourceRecord> records, int reader) {
        return records.stream().filter(r -> ((String) r.key()).startsWith("k" + reader + "-")).count();
    }

    @Test
    void oneChunkAPollTakesTheReadersInTurn() throws Exception {
        Harness h = twoReaders(HandOver.Kind.ONE_CHUNK, BatchBoundary.NONE, 2, 2);
        List<SourceRecord> first = h.pollExpecting(2);
        assertEquals(2, fromReader(first, 0), "one chunk of one reader");
        h.acknowledgeAll();
        h.readers.get(0).batch(2);
        List<SourceRecord> second = h.pollExpecting(2);
        assertEquals(2, fromReader(second, 1), "the next reader's turn, though the first has more");
        List<SourceRecord> third = h.pollExpecting(2);
        assertEquals(2, fromReader(third, 0));
        assertEquals(List.of(1L), h.readers.get(0).acked, "acked, and its next batch opened, on its own turn");
    }

    /**
     * Reader {@code a} (a batch of 5, then one of 2), reader 1 (two batches of 2) and reader 2
     * (none), one chunk a poll: after reader 0's first batch went out and Kafka took it all.
     */
    private static Harness firstBatchOfReaderZeroDelivered(FakeReader a) throws Exception {
        FakeReader b = new FakeReader(1).batch(2).batch(2);
        Harness h = new Harness(List.of(a.batch(5).batch(2), b, new FakeReader(2)), HandOver.Kind.ONE_CHUNK,
                BatchBoundary.NONE, Duration.ofHours(1), false);
        assertEquals(3, fromReader(h.pollExpecting(3), 0));
        assertEquals(2, fromReader(h.pollExpecting(2), 1));
        assertEquals(2, fromReader(h.pollExpecting(2), 0), "reader 2 has nothing: reader 0 goes on");
        h.acknowledgeFrom(0);
        return h;
    }

    @Test
    void aBatchWithNoReadAheadIsAckedOnTheSide() throws Exception {
        FakeReader a = new FakeReader(0);
        Harness h = firstBatchOfReaderZeroDelivered(a);
        h.acknowledgeFrom(1);
        assertEquals(2, fromReader(h.pollExpecting(2), 1), "reader 1's next batch ...");
        assertEquals(List.of(1L), a.acked, "... and reader 0's batch acked on the side");
    }

    @Test
    void aBatchWhoseNextIsReadAheadWaitsForItsTurnAndOpensWhatWasReadAhead() throws Exception {
        FakeReader a = new FakeReader(0).readingAhead(9);
        Harness h = firstBatchOfReaderZeroDelivered(a);
        assertEquals(ReaderState.AWAITING_READ_AHEAD, h.stream.states().get(0));
        h.acknowledgeFrom(1);
        assertEquals(2, fromReader(h.pollExpecting(2), 1), "reader 1's next batch ...");
        assertEquals(List.of(), a.acked, "... while reader 0's batch, its next being read ahead, waits for its turn");
        a.ahead.finish();
        assertEquals(2, fromReader(h.pollExpecting(2), 0), "reader 0's turn: its next batch, the one read ahead");
        assertEquals(List.of(1L), a.acked);
        assertEquals(0, a.ahead.discarded, "what was read ahead is opened, not given back to be read again");
    }

    @Test
    void whereTheWorkerDrawsTransactionsAPollTakesEveryReaderAndTwoChunksOfALargeBatch() throws Exception {
        Harness h = twoReaders(HandOver.Kind.forSlots(BatchBoundary.WORKER), BatchBoundary.WORKER, 8, 2);
        List<SourceRecord> round = h.pollExpecting(8);
        assertEquals(6, fromReader(round, 0), "two chunks: Kafka acknowledges none before the commit");
        assertEquals(2, fromReader(round, 1));
        h.pollExpecting(0);
        h.acknowledgeAll();
        List<SourceRecord> next = h.pollExpecting(2);
        assertEquals(2, fromReader(next, 0), "the rest of reader 0's batch once the transaction committed");
        assertEquals(List.of(1L), h.readers.get(1).acked);
    }

    @Test
    void whereTheTaskDrawsTransactionsARoundGoesOutAChunkAPollAndEndsWithItsLastChunk() throws Exception {
        Drawn drawn = new Drawn();
        BatchBoundary boundary = BatchBoundary.of(drawn, true);
        Harness h = twoReaders(HandOver.Kind.forSlots(boundary), boundary, 8, 5);
        assertEquals(3, fromReader(h.pollExpecting(3), 0));
        assertEquals(3, fromReader(h.pollExpecting(3), 0), "reader 0's second chunk, same transaction");
        assertEquals(3, fromReader(h.pollExpecting(3), 1));
        List<SourceRecord> last = h.pollExpecting(2);
        assertEquals(2, fromReader(last, 1));
        assertEquals(1, drawn.commits.size(), "one transaction for the round");
        assertSame(last.get(1), drawn.commits.get(0), "ending after the round's last record");
        assertNull(h.poll(), "nothing more until the round's records are acknowledged");
    }

    @Test
    void whereTheTaskDrawsTransactionsAnEmptyLastTurnEndsTheTransactionWithAnEmptyPoll() throws Exception {
        Drawn drawn = new Drawn();
        BatchBoundary boundary = BatchBoundary.of(drawn, true);
        Harness h = twoReaders(HandOver.Kind.forSlots(boundary), boundary, 5, 0);
        h.pollExpecting(3);
        h.pollExpecting(2);
        assertTrue(drawn.commits.isEmpty(), "reader 1 has yet to take its turn");
        List<SourceRecord> end = h.poll();
        assertEquals(List.of(), end, "an empty poll that ends the transaction");
        assertEquals(List.of("poll"), drawn.commits);
    }
}

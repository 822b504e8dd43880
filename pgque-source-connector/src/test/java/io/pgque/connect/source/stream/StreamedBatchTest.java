/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.client.Message;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The chunk accounting of a batch in flight: when more may be read, when it is delivered, who is woken. */
class StreamedBatchTest {

    private static final int CHUNK = 3;

    private final AtomicInteger wakeups = new AtomicInteger();
    private final StreamedBatch batch = new StreamedBatch(7, CHUNK, wakeups::incrementAndGet);

    @Test
    void theNextChunkIsReadOnlyWhileAtMostOneChunkWaitsOnKafka() {
        assertTrue(batch.readyForMore());
        batch.take(messages(1, 3));
        assertTrue(batch.readyForMore(), "one chunk out");
        batch.take(messages(4, 6));
        assertFalse(batch.readyForMore(), "two chunks out: wait");
        batch.delivered();
        assertEquals(0, wakeups.get());
        batch.delivered();
        batch.delivered();
        assertTrue(batch.readyForMore(), "one chunk acknowledged");
        assertEquals(1, wakeups.get(), "the poll thread is told once there is room");
        assertEquals(6, batch.restAfter(), "the rest starts after the last event read");
    }

    @Test
    void theBatchIsDeliveredOnlyAfterItsLastChunkWasTakenAndAllOfItAcknowledged() {
        batch.take(messages(1, 3));
        acknowledge(3);
        assertFalse(batch.isDelivered(), "more chunks may follow");
        batch.take(messages(4, 5));
        batch.lastChunkTaken();
        assertFalse(batch.isDelivered());
        int before = wakeups.get();
        acknowledge(2);
        assertTrue(batch.isDelivered());
        assertFalse(batch.readyForMore());
        assertEquals(before + 1, wakeups.get(), "the last acknowledgement wakes the poll thread");
        assertEquals(5, batch.size());
    }

    @Test
    void aLastChunkWithNothingOutstandingWakesThePollThreadAtOnce() {
        batch.take(messages(1, 3));
        acknowledge(3);
        int before = wakeups.get();
        batch.take(List.of());
        batch.lastChunkTaken();
        assertTrue(batch.isDelivered());
        assertEquals(before + 1, wakeups.get());
    }

    @Test
    void eventsKafkaHoldsAlreadyAreNotSentAgainAndTheRestStartsAfterThem() {
        batch.heldInKafkaThrough(4);
        assertEquals(4, batch.restAfter(), "the cursor opens after what Kafka holds");
        assertEquals(List.of(), ids(batch.take(messages(1, 3))));
        assertEquals(List.of(5L, 6L), ids(batch.take(messages(4, 6))));
        assertEquals(2, batch.sent());
        assertEquals(6, batch.size());
        assertTrue(batch.resumed());
    }

    @Test
    void acknowledgementsFromAnotherThreadRacingTheLastChunkDeliverTheBatch() throws Exception {
        for (int round = 0; round < 200; round++) {
            AtomicInteger woken = new AtomicInteger();
            StreamedBatch raced = new StreamedBatch(round, 100, woken::incrementAndGet);
            raced.take(messages(1, 100));
            CountDownLatch go = new CountDownLatch(1);
            Thread producer = new Thread(() -> {
                awaitQuietly(go);
                for (int i = 0; i < 100; i++) {
                    raced.delivered();
                }
            });
            producer.start();
            go.countDown();
            raced.lastChunkTaken();
            producer.join();
            assertTrue(raced.isDelivered());
            assertTrue(woken.get() >= 1, "whoever comes last wakes the poll thread");
        }
    }

    private void acknowledge(int records) {
        for (int i = 0; i < records; i++) {
            batch.delivered();
        }
    }

    @Test
    void eventsReadBeyondTheFirstChunkAreHandedOverAChunkAtATime() {
        batch.buffer(messages(4, 10), false);
        assertFalse(batch.readToEnd());
        assertEquals(messages(4, 6), batch.takeBuffered(CHUNK));
        assertEquals(messages(7, 9), batch.takeBuffered(CHUNK));
        assertFalse(batch.readToEnd(), "one left");
        assertEquals(messages(10, 10), batch.takeBuffered(CHUNK));
        assertTrue(batch.readToEnd(), "the page held the whole batch");
        assertEquals(null, batch.takeBuffered(CHUNK));
    }

    @Test
    void aBatchLargerThanWhatWasBufferedIsReadOnAfterIt() {
        batch.buffer(messages(4, 5), true);
        assertEquals(messages(4, 5), batch.take(batch.takeBuffered(CHUNK)));
        assertFalse(batch.readToEnd(), "more follows through a cursor");
        assertEquals(5, batch.restAfter(), "from after the last buffered event");
        assertEquals(null, batch.takeBuffered(CHUNK));
    }

    private static List<Message> messages(long from, long to) {
        List<Message> out = new ArrayList<>();
        LongStream.rangeClosed(from, to).forEach(id -> out.add(new Message(id, 7, "t", "p" + id, 0, null, null, null,
                null, null)));
        return out;
    }

    private static List<Long> ids(List<Message> messages) {
        return messages.stream().map(Message::msgId).toList();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

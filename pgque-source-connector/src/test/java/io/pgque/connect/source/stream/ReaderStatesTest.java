/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.connect.source.config.EventHeaders;
import io.pgque.connect.source.delivery.BatchBoundary;
import io.pgque.connect.source.reader.BatchReader.KeepAlive;
import io.pgque.connect.source.stream.FakeReader.Call;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.pgque.connect.source.stream.ReaderState.AWAITING_KAFKA;
import static io.pgque.connect.source.stream.ReaderState.AWAITING_READ_AHEAD;
import static io.pgque.connect.source.stream.ReaderState.BACK_PRESSURED;
import static io.pgque.connect.source.stream.ReaderState.DELIVERED;
import static io.pgque.connect.source.stream.ReaderState.RESTING;
import static io.pgque.connect.source.stream.ReaderState.SENT_AHEAD;
import static io.pgque.connect.source.stream.ReaderState.STREAMING;
import static io.pgque.connect.source.stream.ReaderState.UNLEASED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The states one reader of a stream passes through, against a fake reader: every transition, a
 * transient failure and a lost lease in every state, and a stop in every state.
 */
class ReaderStatesTest {

    /**
     * A stream of one reader brought to {@code state}. Batches: in the states before a batch is
     * open, none yet; else batch 1 (8 events, or fewer where the state needs it) and a next one.
     */
    private static Harness at(ReaderState state, boolean keepAliveEveryPass) throws InterruptedException {
        FakeReader reader = new FakeReader(0);
        Harness h = switch (state) {
            case SENT_AHEAD -> keepAliveEveryPass ? Harness.keepingAliveEveryPass(reader.readingAhead(9))
                    : Harness.of(reader.readingAhead(9));
            case AWAITING_READ_AHEAD -> new Harness(List.of(reader.readingAhead(9)), HandOver.Kind.ONE_CHUNK,
                    BatchBoundary.NONE, Duration.ofHours(1), false);
            default -> keepAliveEveryPass ? Harness.keepingAliveEveryPass(reader) : Harness.of(reader);
        };
        switch (state) {
            case UNLEASED -> {
                reader.claimable = false;
                h.pollExpecting(0);
            }
            case RESTING -> h.pollExpecting(0);
            case STREAMING -> {
                reader.batch(8).batch(2);
                h.pollExpecting(3);
            }
            case BACK_PRESSURED -> {
                reader.batch(8).batch(2);
                h.pollExpecting(3);
                h.pollExpecting(3);
            }
            case AWAITING_KAFKA -> {
                reader.batch(2).batch(2);
                h.pollExpecting(2);
            }
            case SENT_AHEAD -> {
                reader.batch(5).batch(6);
                h.pollExpecting(3);
                reader.ahead.finish();
                h.pollExpecting(2);
                h.acknowledge(3);
                h.pollExpecting(3); // the first chunk of batch 2, while batch 1 waits for its last two
            }
            case AWAITING_READ_AHEAD -> {
                reader.batch(5).batch(2);
                h.pollExpecting(3);
                h.pollExpecting(2);
                h.acknowledgeAll();
            }
            case DELIVERED -> {
                reader.batch(2).batch(2);
                h.pollExpecting(2);
                h.acknowledgeAll();
            }
        }
        assertEquals(state, h.state());
        return h;
    }

    private static FakeReader reader(Harness h) {
        return h.readers.get(0);
    }

    @ParameterizedTest
    @EnumSource(ReaderState.class)
    void everyStateIsReachedAndLeftAgainUntilEveryEventIsDeliveredOnceInOrder(ReaderState state) throws Exception {
        Harness h = at(state, false);
        reader(h).claimable = true;
        reader(h).batch(2);
        h.drain();
        int events = h.payloads.size();
        assertEquals(FakeReader.payloads(1, events), h.payloads);
        assertEquals(RESTING, h.state());
    }

    @Test
    void unleasedToRestingToStreamingToBackPressuredAndBack() throws Exception {
        FakeReader reader = new FakeReader(0);
        reader.claimable = false;
        Harness h = Harness.of(reader);
        h.pollExpecting(0);
        assertEquals(UNLEASED, h.state(), "another worker holds the slot");
        reader.claimable = true;
        pollUntil(h, RESTING);
        assertEquals(1, h.leasesAcquired.get());
        reader.batch(8);
        h.stream.tickArrived();
        h.pollExpecting(3);
        assertEquals(STREAMING, h.state());
        h.pollExpecting(3);
        assertEquals(BACK_PRESSURED, h.state(), "two chunks wait on Kafka");
        h.acknowledge(2);
        assertEquals(BACK_PRESSURED, h.state());
        h.acknowledge(1);
        assertEquals(STREAMING, h.state(), "room for one more chunk");
        h.pollExpecting(2);
        assertEquals(AWAITING_KAFKA, h.state(), "every chunk handed over");
        h.acknowledgeAll();
        assertEquals(DELIVERED, h.state());
        h.pollExpecting(0);
        assertEquals(RESTING, h.state(), "acked, and nothing follows yet");
        assertEquals(List.of(1L), reader.acked);
    }

    @Test
    void aDeliveredBatchIsAckedAndTheNextOpenedInOneStep() throws Exception {
        Harness h = at(DELIVERED, false);
        h.pollExpecting(2);
        assertEquals(List.of(1L), reader(h).acked);
        assertEquals(AWAITING_KAFKA, h.state());
    }

    /**
     * A stream that hears ticks, whose one reader got a batch of two events on a tick and handed
     * it over; with {@code delivered}, Kafka has all of it.
     */
    private static Harness keepingUp(boolean delivered) throws InterruptedException {
        Harness h = Harness.of(new FakeReader(0));
        h.stream.hearing(true);
        pollUntil(h, RESTING);
        reader(h).batch(2);
        h.stream.tickArrived();
        h.pollExpecting(2);
        if (delivered) {
            h.acknowledgeAll();
            assertEquals(DELIVERED, h.state());
        }
        return h;
    }

    @Test
    void aDeliveredBatchOfASlotThatKeepsUpIsAckedWithTheReceiveOfTheNextTick() throws Exception {
        Harness h = keepingUp(true);
        FakeReader reader = reader(h);
        h.pollExpecting(0);
        assertEquals(List.of(), reader.acked, "no tick since the batch was opened: no next batch to open with the ack");
        assertEquals(DELIVERED, h.state());
        assertTrue(h.stream.nextDueNanos() != Long.MIN_VALUE,
                "the stream sleeps until the tick or the ack's deadline, not a pass every millisecond");
        reader.batch(2);
        h.stream.tickArrived();
        h.pollExpecting(2);
        assertEquals(List.of(1L), reader.acked, "acked with the tick's receive");
        assertEquals(0, reader.plainAcks, "one transaction for the ack and the receive");
        assertEquals(AWAITING_KAFKA, h.state());
    }

    @Test
    void aDeliveredBatchWaitingForATickIsAckedByItsDeadlineWhenNoneComes() throws Exception {
        Harness h = keepingUp(true);
        long start = System.nanoTime();
        pollUntil(h, RESTING);
        assertEquals(List.of(1L), reader(h).acked);
        assertTrue(System.nanoTime() - start >= 2 * Harness.POLL_INTERVAL.toNanos() - TimeUnit.MILLISECONDS.toNanos(2),
                "acked at twice the poll interval, not at once");
    }

    @Test
    void aDeliveredBatchIsAckedAtOnceWhenATickCameWhileItWasOnItsWay() throws Exception {
        Harness h = keepingUp(false);
        h.stream.tickArrived();
        reader(h).batch(1);
        h.acknowledgeAll();
        h.pollExpecting(1);
        assertEquals(List.of(1L), reader(h).acked);
        assertEquals(0, reader(h).plainAcks);
    }

    @Test
    void aBatchReadAheadIsSentAheadThenOpenedWhenTheOneBeforeIsAcked() throws Exception {
        Harness h = at(SENT_AHEAD, false);
        assertEquals(1, h.sentAhead.get());
        assertEquals(List.of(), reader(h).acked, "batch 1 is not acked before Kafka has all of it");
        h.acknowledge(2);
        assertEquals(DELIVERED, h.state(), "batch 1 delivered; batch 2 waits to be opened");
        h.pollExpecting(3); // acks 1, opens the batch read ahead, hands over its buffered rest
        assertEquals(List.of(1L), reader(h).acked);
        assertEquals(1, reader(h).ahead.openedAhead);
        assertEquals(AWAITING_KAFKA, h.state());
        assertEquals(FakeReader.payloads(1, 11), h.payloads);
    }

    @Test
    void aDeliveredBatchWaitsForItsReadAheadThenOpensIt() throws Exception {
        Harness h = at(AWAITING_READ_AHEAD, false);
        h.pollExpecting(0);
        assertEquals(AWAITING_READ_AHEAD, h.state(), "the read-ahead is the sooner way on");
        assertEquals(List.of(), reader(h).acked);
        reader(h).ahead.finish();
        assertEquals(DELIVERED, h.state());
        h.pollExpecting(2);
        assertEquals(List.of(1L), reader(h).acked);
        assertEquals(1, h.readAheadOpened.get());
    }

    @Test
    void aLeaseTakenOverWhileKeepingItAliveStartsAfreshUnderTheNewEpoch() throws Exception {
        Harness h = at(AWAITING_KAFKA, true);
        reader(h).keepAliveAnswer = KeepAlive.TAKEN_OVER;
        List<SourceRecord> next = h.pollExpecting(2);
        assertEquals(1, h.leasesLost.get(), "the batch in flight is forgotten ...");
        assertEquals(2, h.leasesAcquired.get(), "... the new lease kept ...");
        assertEquals(2L, next.get(0).headers().lastWithName(EventHeaders.EPOCH).value(), "... and read under");
        assertEquals(List.of(), reader(h).acked, "nothing of the old lease's batch is acked");
    }

    @Test
    void aLeaseNotAnsweredForIsKeptAndTheAckTells() throws Exception {
        Harness h = at(AWAITING_KAFKA, true);
        reader(h).keepAliveAnswer = KeepAlive.NOT_NOW;
        h.pollExpecting(0);
        assertEquals(AWAITING_KAFKA, h.state());
        h.acknowledgeAll();
        h.pollExpecting(2);
        assertEquals(List.of(1L), reader(h).acked);
    }

    /** The call each state makes next, failing as a dropped connection does. */
    private static void armTransientFailure(Harness h, ReaderState state) {
        FakeReader reader = reader(h);
        switch (state) {
            case UNLEASED -> {
                reader.claimable = true;
                reader.failOnce(Call.CLAIM);
            }
            case RESTING -> {
                reader.batch(2);
                reader.failOnce(Call.OPEN);
                h.stream.tickArrived();
            }
            case STREAMING -> reader.failOnce(Call.READ_ON);
            case BACK_PRESSURED, AWAITING_KAFKA, SENT_AHEAD -> reader.failOnce(Call.KEEP_ALIVE);
            case AWAITING_READ_AHEAD -> {
                reader.ahead.fail(); // not reported: the next batch is received the usual way ...
                reader.failOnce(Call.ACK_AND_OPEN); // ... which fails
            }
            case DELIVERED -> reader.failOnce(Call.ACK_AND_OPEN);
        }
    }

    @ParameterizedTest
    @EnumSource(ReaderState.class)
    void aTransientFailureInEveryStateChangesNothingAndTheNextPollsGoOn(ReaderState state) throws Exception {
        Harness h = at(state, true);
        armTransientFailure(h, state);
        expectRetriable(h);
        assertEquals(state == AWAITING_READ_AHEAD ? DELIVERED : state, h.state(),
                "nothing moved (a failed read-ahead is only dropped)");
        assertEquals(0, h.leasesLost.get());
        h.drain();
        assertEquals(FakeReader.payloads(1, h.payloads.size()), h.payloads, "every event once, in order");
        assertEquals(reader(h).restsOpened, reader(h).restsClosed, "every cursor given back");
    }

    @ParameterizedTest
    @EnumSource(value = ReaderState.class, names = "UNLEASED", mode = EnumSource.Mode.EXCLUDE)
    void aLostLeaseInEveryStateDropsTheBatchAndItsEventsComeAgainInOrder(ReaderState state) throws Exception {
        Harness h = at(state, true);
        FakeReader reader = reader(h);
        switch (state) {
            case RESTING -> {
                reader.batch(2);
                reader.loseOnce(Call.OPEN);
                h.stream.tickArrived();
            }
            case STREAMING -> reader.loseOnce(Call.READ_ON);
            case BACK_PRESSURED, AWAITING_KAFKA, SENT_AHEAD -> reader.loseOnce(Call.KEEP_ALIVE);
            case AWAITING_READ_AHEAD -> {
                reader.ahead.finish();
                reader.loseOnce(Call.OPEN_READ_AHEAD);
            }
            case DELIVERED -> reader.loseOnce(Call.ACK_AND_OPEN);
            default -> fail();
        }
        reader.claimable = false; // the slot is someone else's for now
        h.pollExpecting(0);
        assertEquals(UNLEASED, h.state());
        assertEquals(1, h.leasesLost.get());
        assertEquals(List.of(), reader.acked, "nothing of a lost batch is acked");
        reader.claimable = true;
        h.drain();
        List<String> firstDeliveries = new ArrayList<>(h.payloads.stream().distinct().toList());
        assertEquals(FakeReader.payloads(1, firstDeliveries.size()), firstDeliveries, "first deliveries in order");
        assertEquals(reader.restsOpened, reader.restsClosed, "every cursor given back");
    }

    @ParameterizedTest
    @EnumSource(ReaderState.class)
    void aStopInEveryStateAcksWhatKafkaHasAndGivesBackOnlyAReaderWithNothingInFlight(ReaderState state)
            throws Exception {
        Harness h = at(state, false);
        FakeReader reader = reader(h);
        h.stream.close(Duration.ofMillis(1));
        boolean delivered = state == DELIVERED || state == AWAITING_READ_AHEAD;
        assertEquals(delivered ? List.of(1L) : List.of(), reader.acked, "acked: only what Kafka holds whole");
        boolean givesBack = delivered || state == RESTING;
        assertEquals(givesBack ? 1 : 0, reader.releases, "released: only a reader with no batch left open");
        assertEquals(reader.restsOpened, reader.restsClosed, "every cursor given back");
        assertEquals(1, h.readAheadsClosed.get(), "the read-ahead closed");
        if (state == AWAITING_READ_AHEAD) {
            reader.ahead.finish();
            assertEquals(1, reader.ahead.discarded, "the batch read ahead is dropped once read");
        }
        long start = System.nanoTime();
        assertNull(h.stream.poll(), "a stopped stream hands over nothing");
        assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(Harness.POLL_INTERVAL.toMillis()),
                "and returns at once");
    }

    /**
     * A set a resize retired is abandoned: in every state nothing is acked or given back (the
     * engine has no lease or batch of it left), yet what the stream holds goes, as on a stop: the
     * cursors, a batch read ahead, the read-ahead itself. It ends once: a close after it gives back
     * nothing either.
     */
    @ParameterizedTest
    @EnumSource(ReaderState.class)
    void anAbandonInEveryStateAcksAndGivesBackNothingButDropsWhatTheStreamHolds(ReaderState state)
            throws Exception {
        Harness h = at(state, false);
        FakeReader reader = reader(h);
        h.stream.abandon();
        h.stream.close(Duration.ofMillis(1));
        h.stream.abandon();
        assertEquals(List.of(), reader.acked, "nothing acked");
        assertEquals(0, reader.releases, "nothing released");
        assertEquals(reader.restsOpened, reader.restsClosed, "every cursor closed");
        assertEquals(1, h.readAheadsClosed.get(), "the read-ahead closed, once");
        if (state == AWAITING_READ_AHEAD) {
            reader.ahead.finish();
            assertEquals(1, reader.ahead.discarded, "the batch read ahead is dropped once read");
        }
        h.acknowledgeAll();
        long start = System.nanoTime();
        assertNull(h.stream.poll(), "an abandoned stream hands over nothing");
        assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(Harness.POLL_INTERVAL.toMillis()),
                "and returns at once");
        assertEquals(List.of(), reader.acked, "not even what Kafka acknowledged since");
    }

    @Test
    void aStopWaitsUpToItsGraceForKafkaThenAcksAndGivesBack() throws Exception {
        Harness h = at(AWAITING_KAFKA, false);
        CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> h.stream.close(Duration.ofSeconds(10)));
        h.acknowledgeAll();
        closing.get(10, TimeUnit.SECONDS);
        assertEquals(List.of(1L), reader(h).acked);
        assertEquals(1, reader(h).releases);
    }

    private static void pollUntil(Harness h, ReaderState state) throws InterruptedException {
        for (int i = 0; i < 20 && h.state() != state; i++) {
            h.poll();
        }
        assertEquals(state, h.state());
    }

    /** Polls (a reader resting may be due only at the end of a poll interval) until the failure is reported. */
    private static void expectRetriable(Harness h) throws InterruptedException {
        for (int i = 0; i < 20; i++) {
            try {
                assertNull(h.poll(), "nothing handed over before the failure");
            } catch (RetriableException expected) {
                return;
            }
        }
        fail("the failure was not reported");
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.slot;

import io.pgque.client.BatchCursor;
import io.pgque.client.BatchNotFoundException;
import io.pgque.client.BatchPage;
import io.pgque.client.Message;
import io.pgque.client.OpenedBatch;
import io.pgque.client.PgQueException;
import io.pgque.client.ReadAhead;
import io.pgque.client.SlotConsumer;
import io.pgque.client.SlotFencedException;
import io.pgque.client.SlotLease;
import io.pgque.client.SlotNotLeasedException;
import io.pgque.connect.source.delivery.BatchBoundary;
import io.pgque.connect.source.offsets.DeliveredPosition;
import io.pgque.connect.source.offsets.DeliveredPositions;
import io.pgque.connect.source.record.RecordFactory;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The lease loop of one task over its slots. Each {@link #poll()} acks the batches Kafka has
 * fully taken, renews leases that are waiting on Kafka, and gives the next slot in turn (round
 * robin, so a busy or empty slot never starves the others) the chance to deliver one chunk of
 * its batch: at most {@code chunkSize} records. A batch is read as a first page and, when that
 * page is full, the rest through a {@link BatchCursor}, a chunk per poll, the next chunk only
 * once Kafka has acknowledged all but one chunk of it; so a task holds at most two chunks per
 * slot, however large the batch (see {@link StreamedBatch}). A slot whose batch was fully
 * taken by Kafka is acked and read on in one transaction. Per slot at most one batch is in
 * flight; the slot's next batch is opened only after that batch is acked, so its events leave in
 * order and a failure replays a suffix, never a gap.
 *
 * <p>Reading is what keeps a slot behind its queue busy in PostgreSQL: a batch's first read scans
 * its whole window. So a slot reads its next batch ahead, on the {@link ReadAheads} thread, while
 * its current one streams (the events between two ticks are fixed once the later tick exists),
 * and opens it as read when the current one is acked; a slot that is behind and cannot read ahead
 * opens its next batch straight into a cursor, one scan for the whole batch.
 *
 * <p>Without Kafka transactions, a slot also <em>sends ahead</em>: once its current batch is
 * all handed over and at most a chunk of it waits on Kafka, the first chunk of the batch read
 * ahead goes out too, before the current one is acked. The current batch is still acked only
 * after Kafka acknowledged its every record, and the next one opened in that same transaction;
 * its records simply no longer wait for that round trip, so Kafka is not left idle at every batch
 * boundary. Its records follow the current batch's in
 * the producer, so per-key order holds; if the open fails or the lease is lost, they are a
 * prefix of what the slot delivers again, as after any failure in at-least-once mode.
 *
 * <p>When the worker writes in Kafka transactions (exactly-once), a transaction instead carries
 * the chunks of every slot that has one, a chunk per poll where the task draws the boundaries
 * ({@link #handOut}), all in one poll where the worker does ({@link #gather}); their source
 * offsets commit atomically with them.
 *
 * <p>Threads: {@link #poll()} and {@link #close} run the database calls and own the slot state
 * (under this object's lock). Kafka's acknowledgements arrive on the producer's thread and only
 * count down a {@link StreamedBatch} and wake the poll thread; they never touch the database or
 * wait for the lock.
 */
public final class SlotPoller implements TickReceiver {

    /**
     * Chunks a batch read ahead without a cursor may hold: the catch-up window's batches (two and
     * a half chunks of the slot's events by default) are then read in one query each, and a slot
     * holds at most this many chunks read ahead beside the two it streams.
     */
    public static final int READ_AHEAD_PAGE_CHUNKS = 3;

    private static final Logger log = LoggerFactory.getLogger(SlotPoller.class);

    private final SlotConsumer consumer;
    private final List<SlotState> slots = new ArrayList<>();
    private final RecordFactory records;
    private final Duration ttl;
    private final long renewEveryNanos;
    private final int chunkSize;
    private final DataSource cursors;
    private final SlotEvents events;
    private final DeliveredPositions positions;
    private final BatchBoundary boundary;
    private final PollLoop loop;
    /** Reads each slot's next batch while its current one streams; null when read-ahead is off. */
    private final ReadAheads readAheads;
    /** Whether a batch read ahead may go out before the one before it is acked (never with transactions). */
    private final boolean sendAhead;
    private int cursor;
    /**
     * Where the task draws the transactions' boundaries: the turns still to come in the open
     * transaction, or the next one, a chunk per poll (see {@link #handOut}).
     */
    private final ArrayDeque<Turn> round = new ArrayDeque<>();
    /** Whether a chunk went out since the task last drew a transaction boundary. */
    private boolean transactionOpen;
    /** A failure of a side step (acking or renewing another slot) met after a batch was taken; see {@link #step()}. */
    private RuntimeException deferred;

    /**
     * @param ttl          lease TTL given to every claim
     * @param pollInterval how long an empty or unclaimable slot rests, and the longest one poll() waits
     * @param chunkSize    events per read from the database; one poll() returns one chunk of one slot
     *                     without Kafka transactions; with them, per slot up to two chunks, or the
     *                     chunks of a batch read ahead in one query
     * @param cursors      connections for the cursors over the rest of large batches (one per slot streaming one)
     * @param backoff      pause after a transient database failure, before poll() reports it
     * @param positions    what Kafka already holds per slot (exactly-once), or {@link DeliveredPositions#NONE}
     * @param boundary     whether the worker writes in Kafka transactions, and told where each one ends
     * @param ahead        whether and how a slot reads its next batch, on a thread of the poller's
     *                     own, while its current one streams, and whether it may send it ahead
     *                     (without Kafka transactions and without delivered positions only)
     */
    public SlotPoller(SlotConsumer consumer, List<Integer> slotNumbers, RecordFactory records, Duration ttl,
                      Duration pollInterval, int chunkSize, DataSource cursors, Duration backoff, SlotEvents events,
                      DeliveredPositions positions, BatchBoundary boundary, ReadAheadSettings ahead) {
        this.consumer = consumer;
        for (int slot : slotNumbers) {
            slots.add(new SlotState(slot));
        }
        this.records = records;
        this.ttl = ttl;
        // A third of the TTL leaves two more chances before the lease runs out.
        this.renewEveryNanos = ttl.toNanos() / 3;
        this.loop = new PollLoop(this, pollInterval, backoff,
                () -> "queue '" + consumer.queue() + "' as consumer '" + consumer.consumer() + "'");
        if (chunkSize < 1) {
            throw new IllegalArgumentException("chunkSize must be at least 1, was " + chunkSize);
        }
        this.chunkSize = chunkSize;
        this.cursors = cursors;
        this.events = events;
        this.positions = positions;
        this.boundary = boundary;
        this.readAheads = ahead.readAhead()
                ? new ReadAheads(consumer, slotNumbers, cursors, chunkSize, ahead) : null;
        // Exactly-once resumes a slot from the offsets committed with its records: those of a
        // batch not yet open would name a batch the slot may never open.
        this.sendAhead = ahead.sendAhead() && !boundary.transactional() && positions == DeliveredPositions.NONE;
    }

    /**
     * The next chunk of some slot's batch (of every slot that has one, with Kafka transactions),
     * or null when none was ready within the poll interval.
     *
     * @throws RetriableException when the database is unreachable for now (after a backoff)
     * @throws ConnectException   when reading cannot go on without a person (wrong N, no queue, no rights)
     */
    public List<SourceRecord> poll() throws InterruptedException {
        return loop.poll(() -> {
            throwDeferred();
            return step();
        }, this::nextDueNanos);
    }

    /**
     * The queue ticked (a {@link TickListener} heard it): the leased slots that rest because
     * they had no batch are read again at once. Any thread; never blocks.
     */
    @Override
    public void tickArrived() {
        loop.tickArrived();
    }

    /**
     * While ticks are heard, a slot that found no batch waits for the next one rather than
     * asking again every poll interval: only a tick can give it one. Any thread; never blocks.
     */
    @Override
    public void hearing(boolean heard) {
        loop.hearing(heard);
    }

    /** Makes a running or future {@link #poll()} return at once. Any thread. */
    public void stop() {
        loop.stop();
    }

    /**
     * At a batch boundary, gives the slots back: waits up to {@code grace} for Kafka to take what
     * is in flight, acks every fully delivered batch and releases every slot with no open batch.
     * A slot whose batch is still out keeps its lease until the TTL runs out; its next owner
     * gets the same batch again (at-least-once).
     */
    public synchronized void close(Duration grace) {
        stop();
        long end = System.nanoTime() + grace.toNanos();
        try {
            while (anyUndelivered() && System.nanoTime() < end) {
                loop.await(end - System.nanoTime());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SlotState slot : slots) {
            if (!slot.idle()) {
                slot.batch().closeCursor();
                dropAhead(slot.batch());
            }
            try {
                long now = System.nanoTime();
                if (!slot.idle() && slot.batch().isDelivered()) {
                    ack(slot, now); // and opens the batch sent ahead, if any ...
                    if (!slot.idle() && slot.batch().isDelivered()) {
                        ack(slot, now); // ... which Kafka may hold whole too
                    }
                }
                if (slot.leased() && slot.idle()) {
                    boolean released = consumer.release(slot.slot());
                    log.info("Released slot {} of {} (epoch {}){}", slot.slot(), consumer.consumer(), slot.epoch(),
                            released ? "" : ": it was no longer ours");
                    slot.leaseLost(now);
                } else if (slot.leased()) {
                    log.info("Keeping slot {} of {} until its lease runs out: {} is not fully in Kafka yet and "
                            + "will be delivered again by the next owner", slot.slot(), consumer.consumer(), slot.batch());
                }
            } catch (RuntimeException e) {
                log.warn("Could not give back slot {} of {} cleanly; its lease runs out in at most {} ms: {}",
                        slot.slot(), consumer.consumer(), ttl.toMillis(), e.getMessage(), e);
            }
        }
        if (readAheads != null) {
            readAheads.close();
        }
    }

    /**
     * One pass over the slots: delivered batches are acked (and the slot's next batch read in the
     * same database transaction), chunks are read, and leases waiting on Kafka are renewed. What
     * the pass hands over depends on whether the worker writes in Kafka transactions: without,
     * one chunk of one slot ({@link #serveFirst}); with, the chunks of every slot that has one,
     * committed as one Kafka transaction ({@link #gather}).
     *
     * <p>Every database call changes a slot's state only once it succeeded, so a failure leaves
     * each slot as it was and the next pass does the same work again. The one thing a failure
     * must not do is lose a batch already taken in this pass: its slot counts it as in flight,
     * and records nobody returned would never be acked, so the slot would renew its lease forever
     * without progress. Once a batch is taken, a failing side step therefore ends the pass and
     * its failure is kept for the next {@link #poll()} to report.
     */
    private List<SourceRecord> step() {
        loop.clearWakeups();
        long now = System.nanoTime();
        boolean tick = loop.takeTick();
        List<SourceRecord> out = new ArrayList<>();
        boolean sawEverySlot = false;
        try {
            sawEverySlot = !boundary.transactional() ? serveFirst(out, now, tick)
                    : boundary.drawnByTask() ? handOut(out, now, tick) : gather(out, now, tick);
            for (SlotState slot : slots) {
                if (!slot.idle() && slot.leased() && now >= slot.nextRenewalNanos()) {
                    renew(slot, now);
                }
            }
        } catch (RuntimeException e) {
            if (out.isEmpty()) {
                throw e;
            }
            deferred = e;
        }
        if (tick && !sawEverySlot) {
            // The pass stopped early: the slots it did not look at have not looked since the tick.
            loop.keepTick();
        }
        if (out.isEmpty()) {
            if (transactionOpen) {
                // The round's last chunk went out on an earlier poll: its transaction ends with this one.
                transactionOpen = false;
                boundary.transactionEndsWithPoll();
                return List.of();
            }
            return null;
        }
        if (boundary.drawnByTask() && !round.isEmpty()) {
            transactionOpen = true;
        } else {
            transactionOpen = false;
            boundary.transactionEndsAfter(out.get(out.size() - 1));
        }
        return out;
    }

    /**
     * Without Kafka transactions: the first slot in round-robin order from the cursor that yields
     * records is served, so a busy or empty slot never starves the others; every other
     * delivered batch is just acked.
     *
     * @return whether the pass looked at every slot for records (none yielded any)
     */
    private boolean serveFirst(List<SourceRecord> out, long now, boolean tick) {
        int count = slots.size();
        for (int i = 0; i < count; i++) {
            int index = (cursor + i) % count;
            SlotState slot = slots.get(index);
            if (out.isEmpty()) {
                List<SourceRecord> chunk = next(slot, now, tick);
                if (chunk != null) {
                    out.addAll(chunk);
                    cursor = (index + 1) % count;
                }
            } else if (!slot.idle() && slot.batch().isDelivered()) {
                ack(slot, now);
            }
        }
        return out.isEmpty();
    }

    /**
     * With Kafka transactions (exactly-once): every slot gives what it has ready (ack and next
     * batch, next chunk, or a first read), and all of it goes out as one transaction, with the
     * offsets of every slot in it. A transaction costs round trips of its own (the partitions
     * added to it, the offsets, the commit markers) whatever its size, so sharing one among the
     * slots of a task, and giving it two chunks of a large batch, is what makes exactly-once cheap.
     *
     * <p>A slot whose batch was read ahead in one query (up to {@link #READ_AHEAD_PAGE_CHUNKS}
     * chunks, already in memory) gives all of it: the catch-up window's batches then go out as one
     * transaction each rather than two. A slot streaming a batch through a cursor gives a second
     * chunk, and no more: Kafka acknowledges the records of a transaction only once it commits, so
     * none of this pass's is acknowledged yet and {@link StreamedBatch#readyForMore} stops at two.
     * A transaction thus holds per slot what the slot holds in memory anyway: at most the chunks
     * read ahead, or two chunks of a larger batch. Each slot still has at most one batch in flight,
     * read after its previous batch was acked, and acked only after Kafka acknowledged its every
     * record, that is after its transaction committed.
     *
     * @return true: every slot had its turn
     */
    private boolean gather(List<SourceRecord> out, long now, boolean tick) {
        for (SlotState slot : slots) {
            addTo(out, next(slot, now, tick));
        }
        for (SlotState slot : slots) {
            while (!slot.idle() && slot.batch().hasBuffered()) {
                addTo(out, readOn(slot));
            }
            if (!slot.idle() && slot.batch().readyForMore()) {
                addTo(out, readOn(slot));
            }
        }
        return true;
    }

    /** A slot's turn in the open transaction: its first (ack, next batch, next chunk) or a further chunk. */
    private record Turn(SlotState slot, boolean first) {
    }

    /**
     * With Kafka transactions the task draws itself ({@code transaction.boundary=connector}): what
     * {@link #gather} puts in one poll, one chunk per poll. A transaction holds a round: every
     * slot in turn gives what it has ready, as in {@link #gather}, and the transaction ends after
     * the round's last chunk. The worker converts and sends each chunk while the next is read and
     * turned into records, and the producer has the first records of a transaction after one
     * chunk, not after all of them (a poll of several slots' batches took tens of milliseconds,
     * with Kafka idle). A new round starts only after the last one's transaction ended, that is
     * committed, so every slot's earlier batch is acknowledged by then and each slot still has
     * one batch in flight at a time.
     *
     * @return whether every slot had its turn in the round (a tick then reached them all)
     */
    private boolean handOut(List<SourceRecord> out, long now, boolean tick) {
        if (round.isEmpty() && !transactionOpen) {
            slots.forEach(slot -> round.add(new Turn(slot, true)));
        }
        while (!round.isEmpty()) {
            SlotState slot = round.peekFirst().slot();
            List<SourceRecord> chunk = round.peekFirst().first() ? next(slot, now, tick)
                    : hasMoreForTransaction(slot) ? readOn(slot) : null;
            round.pollFirst();
            if (hasMoreForTransaction(slot)) {
                round.addFirst(new Turn(slot, false));
            }
            if (chunk != null) {
                out.addAll(chunk);
                return round.isEmpty();
            }
        }
        return true;
    }

    /**
     * Whether the slot has more for the open transaction: chunks read ahead in memory, or one
     * more chunk of the batch it streams (Kafka acknowledges nothing before the commit, so
     * {@link StreamedBatch#readyForMore} stops at two chunks).
     */
    private static boolean hasMoreForTransaction(SlotState slot) {
        return !slot.idle() && (slot.batch().hasBuffered() || slot.batch().readyForMore());
    }

    private static void addTo(List<SourceRecord> out, List<SourceRecord> chunk) {
        if (chunk != null) {
            out.addAll(chunk);
        }
    }

    /** What the slot has to hand over now: its next batch after acking the delivered one, its next chunk, or a first read. */
    private List<SourceRecord> next(SlotState slot, long now, boolean tick) {
        if (slot.idle()) {
            return now >= slot.nextAttemptNanos() || tick && slot.leased() ? receive(slot) : null;
        }
        if (slot.batch().isDelivered()) {
            return ackAndReceive(slot, now);
        }
        if (slot.batch().readyForMore()) {
            return readOn(slot);
        }
        return canSendAhead(slot) ? sendAhead(slot) : null;
    }

    /**
     * Whether the first chunk of the slot's next batch may go out now: the current batch is all
     * handed over, at most a chunk of it waits on Kafka, and the next one was read ahead in one
     * query (one read into a cursor is read through that cursor once it is open, as the rest of a
     * batch always is).
     */
    private boolean canSendAhead(SlotState slot) {
        StreamedBatch current = slot.batch();
        if (!sendAhead || slot.sentAhead() != null || !current.complete() || !current.atMostAChunkOutstanding()
                || slot.needsDeliveryCheck() || loop.stopping()) {
            return false;
        }
        Optional<ReadAhead> next = current.aheadIfRead();
        return next.isPresent() && next.get().batch().rest() == null;
    }

    /** Hands over the first chunk of the batch read ahead after the slot's current one, which stays unacked. */
    private List<SourceRecord> sendAhead(SlotState slot) {
        ReadAhead read = slot.batch().takeAhead().join().orElseThrow();
        Opening next = opening(slot, read.batch());
        slot.sentAhead(new SlotState.SentAhead(next.batch(), read, next.more()));
        events.batchSentAhead(slot.slot());
        return emitChunk(slot, next.batch(), next.first(), !next.more());
    }

    private void throwDeferred() {
        RuntimeException failure = deferred;
        if (failure != null) {
            deferred = null;
            throw failure;
        }
    }

    private List<SourceRecord> receive(SlotState slot) {
        if (!slot.leased() && !claim(slot)) {
            slot.restUntil(System.nanoTime() + loop.restNanos());
            return null;
        }
        Optional<OpenedBatch> received;
        try {
            received = slot.behind()
                    ? consumer.receiveThroughCursor(cursors, slot.slot(), chunkSize)
                    : consumer.receivePage(slot.slot(), chunkSize).map(SlotPoller::whole);
        } catch (SlotFencedException | SlotNotLeasedException e) {
            lose(slot, e);
            return null;
        }
        return emit(slot, received, System.nanoTime());
    }

    /**
     * Acks the slot's delivered batch and, in the same transaction, reads its next one: a slot
     * that is behind reads it whole into a cursor, in one scan of its window; one that keeps up
     * reads a first page (one round trip, and a second scan only if the page is full).
     */
    private List<SourceRecord> ackAndReceive(SlotState slot, long now) {
        StreamedBatch done = slot.batch();
        if (slot.sentAhead() != null) {
            ackAndOpenSentAhead(slot, now);
            if (!slot.leased()) {
                return null;
            }
            return slot.idle() ? receive(slot) : slot.batch().readyForMore() ? readOn(slot) : null;
        }
        if (done.aheadPending()) {
            if (now - done.aheadSince() < renewEveryNanos) {
                return null; // the read-ahead is nearly always the sooner way on; its end wakes the poll
            }
            log.warn("Reading ahead of {} on slot {} of {} has taken over {} ms; receiving the slot's next batch "
                    + "the usual way", done, slot.slot(), consumer.consumer(), renewEveryNanos / 1_000_000);
            dropAhead(done);
        }
        Optional<ReadAhead> ahead = readAhead(done, slot);
        if (ahead.isPresent()) {
            return ackAndOpen(slot, done, ahead.get(), now);
        }
        Optional<OpenedBatch> received;
        try {
            received = slot.behind()
                    ? consumer.ackAndReceiveThroughCursor(cursors, slot.slot(), done.batchId(), chunkSize)
                    : consumer.ackAndReceivePage(slot.slot(), done.batchId(), chunkSize).map(SlotPoller::whole);
        } catch (SlotFencedException | SlotNotLeasedException e) {
            lose(slot, e);
            return null;
        }
        slot.batchFinished(now);
        events.batchAcked(slot.slot(), clamp(done.size()));
        return emit(slot, received, System.nanoTime());
    }

    /**
     * How long a slot that found no batch rests: the poll interval; or, while ticks are heard
     * (each wakes it), until its lease wants renewing, which the next receive does. Without the
     * ticks, a quiet slot's receives every poll interval were most of an idle connector's queries.
     */
    private long emptyRestNanos() {
        return loop.hearsTicks() ? Math.max(renewEveryNanos, loop.restNanos()) : loop.restNanos();
    }

    /** A first page read without a cursor: the rest, if any, gets one when it is read. */
    private static OpenedBatch whole(BatchPage page) {
        return new OpenedBatch(page, null);
    }

    /** Puts a received batch in flight and turns its first page into records; null when there is nothing to send. */
    private List<SourceRecord> emit(SlotState slot, Optional<OpenedBatch> received, long now) {
        return emit(slot, received, now, null);
    }

    /** As above, with the batch after it read ahead already by {@code readingAfter} (null: none is). */
    private List<SourceRecord> emit(SlotState slot, Optional<OpenedBatch> received, long now,
                                    CompletableFuture<Optional<ReadAhead>> readingAfter) {
        slot.renewAt(now + renewEveryNanos);
        if (received.isEmpty()) {
            slot.caughtUp();
            slot.restUntil(now + emptyRestNanos());
            return null;
        }
        Opening opening = opening(slot, received.get());
        slot.batchStarted(opening.batch(), opening.more());
        startReadAhead(slot, opening.batch(), received.get().first(), readingAfter);
        return emitChunk(slot, opening.batch(), opening.first(), !opening.more());
    }

    /**
     * A batch about to stream: its ticket, with the events beyond its first chunk buffered, and
     * that first chunk.
     *
     * @param more whether the batch holds more than the first chunk
     */
    private record Opening(StreamedBatch batch, List<Message> first, boolean more) {
    }

    private Opening opening(SlotState slot, OpenedBatch received) {
        BatchPage page = received.first();
        StreamedBatch batch = new StreamedBatch(page.batchId(), slot.epoch(), chunkSize, loop::wake);
        if (received.rest() != null) {
            batch.cursorOpened(received.rest());
        }
        if (slot.needsDeliveryCheck()) {
            checkDelivered(slot, batch);
            slot.deliveryChecked();
        }
        List<Message> first = page.messages();
        boolean more = page.full();
        if (first.size() > chunkSize) {
            // Read ahead in one query of several chunks: handed over a chunk at a time all the same.
            batch.buffer(first.subList(chunkSize, first.size()), more);
            first = first.subList(0, chunkSize);
            more = true;
        }
        return new Opening(batch, first, more);
    }

    /**
     * Reads the slot's next batch on the read-ahead thread while {@code batch} streams, so that
     * the scan of its window, most of what reading a batch costs, overlaps sending this one: a
     * slot's batches are otherwise read, sent and acked strictly in turn, and its database time
     * and Kafka time add up. When nothing follows the batch yet this costs one short query, so
     * it is done only after batches of a chunk or more. Where the batch before read its next but
     * one ({@code readingAfter}, see {@link ReadAheads#after}), that read is the next batch's; if
     * it found nothing (it ran after this batch was opened, say), the next batch is read now.
     */
    private void startReadAhead(SlotState slot, StreamedBatch batch, BatchPage first,
                                CompletableFuture<Optional<ReadAhead>> readingAfter) {
        if (readAheads == null || loop.stopping()) {
            return;
        }
        if (!first.full() && first.messages().size() < chunkSize) {
            // A batch smaller than a chunk: the slot keeps up, and its next batch is read with the
            // ack in one round trip anyway. Reading ahead would only cost a query that nearly
            // always finds no next tick yet, and at a short ticker interval those queries of
            // every slot land just when the slots' new batches are read and sent, which lengthens
            // the latency's tail. A slot that falls behind gets batches of
            // its catch-up window, larger than a chunk, and reads ahead again.
            readAheads.discard(readingAfter);
            return;
        }
        // The next batch is likely about as large as this one, or as the last one when this one's
        // size is not known yet (only its first page is read): one larger than a read-ahead page
        // is read into a cursor, in one scan, rather than as a page and a second scan for the rest.
        boolean large = first.full() && (first.messages().size() >= readAheads.pageEvents()
                || slot.lastBatchEvents() > readAheads.pageEvents());
        CompletableFuture<Optional<ReadAhead>> next = readingAfter == null
                ? readAheads.start(slot.slot(), batch.batchId(), large)
                : readingAfter.handle((read, failure) -> failure == null && read.isPresent()
                        ? CompletableFuture.completedFuture(read)
                        : readAheads.startOrNone(slot.slot(), batch.batchId(), large)).thenCompose(f -> f);
        if (next != null) {
            readingAhead(batch, next, slot.slot());
        }
    }

    /** {@code batch}'s next batch is read by {@code next}; the one after that is read as soon as it is. */
    private void readingAhead(StreamedBatch batch, CompletableFuture<Optional<ReadAhead>> next, int slot) {
        batch.readingAhead(next, System.nanoTime());
        batch.readingAfterAhead(readAheads.after(slot, batch.batchId(), next));
        next.whenComplete((read, failure) -> loop.wake(batch));
    }

    private void dropAhead(StreamedBatch batch) {
        if (readAheads != null) {
            readAheads.discard(batch.takeAhead());
            readAheads.discard(batch.takeAfterAhead());
        }
    }

    /** The batch read ahead of {@code done}, once it is read: empty when there is none, or reading it failed. */
    private Optional<ReadAhead> readAhead(StreamedBatch done, SlotState slot) {
        CompletableFuture<Optional<ReadAhead>> ahead = done.takeAhead();
        if (ahead == null) {
            return Optional.empty();
        }
        try {
            return ahead.join();
        } catch (CompletionException e) {
            log.debug("Reading ahead of {} on slot {} of {} failed; receiving the next batch the usual way: {}",
                    done, slot.slot(), consumer.consumer(), e.getCause().getMessage());
            return Optional.empty();
        }
    }

    /**
     * Acks the slot's delivered batch and opens the batch read ahead after it, in one
     * transaction; when the slot moved otherwise in between (the engine then opens nothing),
     * receives the usual way.
     */
    private List<SourceRecord> ackAndOpen(SlotState slot, StreamedBatch done, ReadAhead ahead, long now) {
        Opened opened;
        try {
            opened = ackThenOpen(slot, done, ahead, now);
        } catch (RuntimeException e) {
            // Nothing changed here; the next pass tries again with the same read-ahead.
            done.readingAhead(CompletableFuture.completedFuture(Optional.of(ahead)), done.aheadSince());
            throw e;
        }
        return switch (opened) {
            case LOST -> null;
            case REFUSED -> receive(slot);
            case OPENED -> emit(slot, Optional.of(ahead.batch()), System.nanoTime(), done.takeAfterAhead());
        };
    }

    /**
     * Acks the slot's delivered batch and opens the one sent ahead after it, in one transaction.
     * Leaves the slot streaming the batch sent ahead; idle when the engine would not open it (what
     * went out of it comes again); without its lease when fenced. A transient failure changes
     * nothing: the next pass tries again.
     */
    private void ackAndOpenSentAhead(SlotState slot, long now) {
        SlotState.SentAhead next = slot.sentAhead();
        StreamedBatch done = slot.batch();
        Opened opened = ackThenOpen(slot, done, next.read(), now);
        if (opened == Opened.LOST) {
            return; // losing the lease forgot the batch sent ahead too
        }
        slot.takeSentAhead();
        slot.renewAt(now + renewEveryNanos);
        if (opened == Opened.OPENED) {
            slot.batchStarted(next.batch(), next.larger());
            startReadAhead(slot, next.batch(), next.read().batch().first(), done.takeAfterAhead());
        }
    }

    /** What {@link #ackThenOpen} did with the batch read ahead. */
    private enum Opened { OPENED, REFUSED, LOST }

    /**
     * The ack of the slot's delivered batch {@code done} and the open of {@code ahead}, in one
     * transaction. Leaves the slot idle (its batch finished) unless the lease was lost; on a
     * transient failure changes nothing and throws.
     */
    private Opened ackThenOpen(SlotState slot, StreamedBatch done, ReadAhead ahead, long now) {
        boolean opened;
        try {
            opened = consumer.ackAndOpen(slot.slot(), done.batchId(), ahead);
        } catch (SlotFencedException | SlotNotLeasedException e) {
            readAheads.discard(ahead);
            lose(slot, e);
            return Opened.LOST;
        }
        slot.batchFinished(now);
        events.batchAcked(slot.slot(), clamp(done.size()));
        if (!opened) {
            readAheads.discard(ahead);
            log.info("Batch {} read ahead on slot {} of {} could not be opened (the slot moved in between); "
                    + "receiving the usual way", ahead.batchId(), slot.slot(), consumer.consumer());
            return Opened.REFUSED;
        }
        readAheads.opened(ahead);
        events.batchReadAhead(slot.slot());
        if (ahead.shared()) {
            events.batchReadAheadWithoutScan(slot.slot());
        }
        return Opened.OPENED;
    }

    /**
     * The next chunk of the slot's batch, read through its cursor (opened on the first chunk
     * after the first page, and again after a failure, from where reading stopped).
     */
    private List<SourceRecord> readOn(SlotState slot) {
        StreamedBatch batch = slot.batch();
        List<Message> buffered = batch.takeBuffered(chunkSize);
        if (buffered != null) {
            return emitChunk(slot, batch, buffered, batch.readToEnd());
        }
        List<Message> chunk;
        try {
            BatchCursor cursor = batch.cursor();
            if (cursor == null) {
                cursor = consumer.openRest(cursors, slot.slot(), batch.batchId(), batch.restAfter());
                batch.cursorOpened(cursor);
            }
            chunk = cursor.next(chunkSize);
        } catch (SlotFencedException | SlotNotLeasedException | BatchNotFoundException e) {
            lose(slot, e);
            return null;
        } catch (RuntimeException e) {
            // The cursor may be broken with its connection: read on through a new one next time.
            batch.closeCursor();
            throw e;
        }
        // The cursor renewed the lease when it was opened; a long stream also renews explicitly.
        return emitChunk(slot, batch, chunk, chunk.size() < chunkSize);
    }

    /** Hands one chunk of the slot's batch over; null when nothing of it is to be sent. */
    private List<SourceRecord> emitChunk(SlotState slot, StreamedBatch batch, List<Message> chunk, boolean last) {
        List<Message> toSend = batch.take(chunk);
        List<SourceRecord> out = new ArrayList<>(toSend.size());
        for (Message message : toSend) {
            SourceRecord record = records.create(message, slot.slot(), slot.epoch(), batch);
            if (record != null) { // null: dead-lettered as unreadable, and counted as delivered
                out.add(record);
            }
        }
        if (last) {
            batch.lastChunkTaken();
            if (batch.resumed() && batch.sent() == 0) {
                events.batchSkipped(slot.slot(), clamp(batch.size()));
                log.info("Batch {} on slot {} of {} is in Kafka already, to its last event (its offset was committed "
                        + "with it); acking it without sending it again", batch.batchId(), slot.slot(), consumer.consumer());
            }
        }
        if (out.isEmpty()) {
            return null; // all of it skipped or dead-lettered; a complete batch is acked on the next step
        }
        events.batchEmitted(slot.slot(), out.size());
        log.debug("Emitted {} records of {}", out.size(), batch);
        return out;
    }

    /**
     * Exactly-once, first batch after a claim: how much of it Kafka holds, by the offset
     * committed with the records. Only then: later batches of the same lease are opened after
     * this task acked the previous one, so none of them can be in Kafka already.
     */
    private void checkDelivered(SlotState slot, StreamedBatch batch) {
        Optional<DeliveredPosition> delivered = positions.lastDelivered(slot.slot());
        if (delivered.isEmpty()) {
            return;
        }
        DeliveredPosition position = delivered.get();
        if (position.isAheadOf(batch.batchId())) {
            log.warn("The committed offset of slot {} of {} is at batch {}, beyond the slot's open batch {}: was the "
                            + "database restored from a backup? Sending the batch whole; reset the connector's offsets "
                            + "after such a restore.", slot.slot(), consumer.consumer(), position.batchId(),
                    batch.batchId());
        } else if (position.batchId() == batch.batchId()) {
            batch.heldInKafkaThrough(position.eventId());
            log.info("Resuming batch {} on slot {} of {} after event {}: Kafka holds it up to there",
                    batch.batchId(), slot.slot(), consumer.consumer(), position.eventId());
        }
    }

    private static int clamp(long count) {
        return (int) Math.min(count, Integer.MAX_VALUE);
    }

    private boolean claim(SlotState slot) {
        Optional<SlotLease> lease = consumer.claim(slot.slot(), ttl);
        if (lease.isEmpty()) {
            log.debug("Slot {} of {} is held by another worker; trying again later", slot.slot(), consumer.consumer());
            return false;
        }
        slot.leaseAcquired(lease.get().epoch(), System.nanoTime() + renewEveryNanos);
        events.leaseAcquired(slot.slot(), lease.get().epoch());
        log.info("Claimed slot {} of {} on queue {} as {} (epoch {})", slot.slot(), consumer.consumer(),
                consumer.queue(), consumer.workerId(), lease.get().epoch());
        return true;
    }

    /**
     * Keeps the lease of a slot whose batch is still on its way to Kafka. A missing answer is not
     * proof of loss (a competing claim may hold the row for a moment): the ack will tell.
     */
    private void renew(SlotState slot, long now) {
        Optional<SlotLease> lease = consumer.claim(slot.slot(), ttl);
        if (lease.isEmpty()) {
            slot.renewAt(now + loop.restNanos());
        } else if (lease.get().epoch() != slot.epoch()) {
            // Someone else owned the slot in between: whatever we had in flight may have been
            // handled by them. Start the slot afresh under the new epoch.
            lose(slot, null);
            slot.leaseAcquired(lease.get().epoch(), now + renewEveryNanos);
            events.leaseAcquired(slot.slot(), lease.get().epoch());
        } else {
            slot.renewAt(now + renewEveryNanos);
        }
    }

    private void ack(SlotState slot, long now) {
        if (slot.sentAhead() != null) {
            ackAndOpenSentAhead(slot, now);
            return;
        }
        StreamedBatch batch = slot.batch();
        try {
            if (!consumer.ack(slot.slot(), batch.batchId())) {
                // Our earlier ack committed but its answer was lost; the batch is finished either way.
                log.debug("{} was already finished", batch);
            }
        } catch (SlotFencedException | SlotNotLeasedException e) {
            lose(slot, e);
            return;
        }
        slot.batchFinished(now);
        slot.renewAt(now + renewEveryNanos);
        events.batchAcked(slot.slot(), clamp(batch.size()));
    }

    private void lose(SlotState slot, PgQueException why) {
        StreamedBatch dropped = slot.leaseLost(System.nanoTime());
        if (dropped != null) {
            dropped.closeCursor();
            dropAhead(dropped);
        }
        events.leaseLost(slot.slot());
        log.warn("Lost slot {} of {} on queue {} (we had epoch {}): {}. {} Will claim it again when it is free.",
                slot.slot(), consumer.consumer(), consumer.queue(), dropped == null ? slot.epoch() : dropped.epoch(),
                why == null ? "another worker owned it in between" : why.getMessage(),
                dropped == null ? "Nothing was in flight."
                        : "Not acking " + dropped + "; its events will be delivered again.");
    }

    private long nextDueNanos() {
        long due = Long.MAX_VALUE;
        for (SlotState slot : slots) {
            if (slot.idle()) {
                due = Math.min(due, slot.nextAttemptNanos());
            } else if (slot.batch().readyForMore() || slot.batch().isDelivered() && !slot.batch().aheadPending()
                    || canSendAhead(slot)) {
                due = Long.MIN_VALUE; // a chunk to read or send ahead, or a batch to ack: no waiting
            } else if (slot.batch().isDelivered()) {
                // Acked once its read-ahead is done (which wakes the poll), or given up on.
                due = Math.min(due, Math.min(slot.batch().aheadSince() + renewEveryNanos, slot.nextRenewalNanos()));
            } else if (slot.leased()) {
                due = Math.min(due, slot.nextRenewalNanos());
            }
        }
        return due;
    }

    private boolean anyUndelivered() {
        for (SlotState slot : slots) {
            if (!slot.idle() && (!slot.batch().isDelivered()
                    || slot.sentAhead() != null && slot.sentAhead().batch().anyOutstanding())) {
                return true;
            }
        }
        return false;
    }
}

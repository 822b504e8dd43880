/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.client.BatchPage;
import io.pgque.client.Message;
import io.pgque.client.OpenedBatch;
import io.pgque.client.ReadAhead;
import io.pgque.client.SlotFencedException;
import io.pgque.connect.source.reader.AheadReader;
import io.pgque.connect.source.reader.BatchReader;
import io.pgque.connect.source.reader.LostException;
import io.pgque.connect.source.reader.RestOfBatch;
import io.pgque.connect.source.record.ReaderId;

import java.sql.SQLTransientConnectionException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A reader over batches queued in memory, for the stream's unit tests: it counts what the stream
 * asks of it, and fails one chosen call once, transiently or as a lost lease.
 */
final class FakeReader implements BatchReader {

    enum Call { CLAIM, OPEN, ACK_AND_OPEN, READ_ON, ACK, KEEP_ALIVE, RELEASE, OPEN_READ_AHEAD }

    private final int slot;
    private final Deque<List<Message>> queued = new ArrayDeque<>();
    private long nextMsgId = 1;
    private long nextBatchId = 1;
    private long epoch;
    private ReaderId.Slot id;
    private List<Message> open;
    private Call failing;
    private boolean failAsLost;
    final List<Long> acked = new ArrayList<>();
    final List<Long> opened = new ArrayList<>();
    final List<String> deadLettered = new ArrayList<>();
    int claims;
    /** Acks on their own, not with the next batch's receive. */
    int plainAcks;
    int keepAlives;
    int releases;
    int restsOpened;
    int restsClosed;
    boolean claimable = true;
    KeepAlive keepAliveAnswer = KeepAlive.KEPT;
    /** Set by {@link #readingAhead}: the stream's read-ahead, completed by the test. */
    FakeAhead ahead;

    FakeReader(int slot) {
        this.slot = slot;
        this.id = ReaderId.slot("q", "c", slot, -1);
    }

    /** Queues a batch of {@code events} events. */
    FakeReader batch(int events) {
        long batchId = nextBatchId++;
        List<Message> messages = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            long msgId = nextMsgId++;
            messages.add(new Message(msgId, batchId, "t", "p" + msgId, 0, null, "k" + slot + "-" + msgId, null, null,
                    null));
        }
        queued.add(messages);
        return this;
    }

    FakeReader readingAhead(int pageEvents) {
        ahead = new FakeAhead(pageEvents);
        return this;
    }

    /** The next call of {@code call} fails once, as a dropped connection does. */
    void failOnce(Call call) {
        failing = call;
        failAsLost = false;
    }

    /** The next call of {@code call} finds the lease fenced. */
    void loseOnce(Call call) {
        failing = call;
        failAsLost = true;
    }

    boolean hasQueued() {
        return !queued.isEmpty();
    }

    /** The payloads of every event queued so far, in order. */
    static List<String> payloads(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int id = from; id <= to; id++) {
            out.add("p" + id);
        }
        return out;
    }

    long openBatch() {
        return open == null ? -1 : open.get(0).batchId();
    }

    private void check(Call call) throws LostException {
        if (failing != call) {
            return;
        }
        failing = null;
        if (failAsLost) {
            if (open != null) {
                queued.addFirst(open); // the next owner gets the batch again
                open = null;
            }
            throw new LostException(new SlotFencedException("fenced by a test", "PQ004", null));
        }
        throw new RuntimeException("connection lost", new SQLTransientConnectionException("gone", "08006"));
    }

    private void checkUnchecked(Call call) {
        try {
            check(call);
        } catch (LostException e) {
            throw new AssertionError("not a call that loses a lease", e);
        }
    }

    @Override
    public ReaderId id() {
        return id;
    }

    @Override
    public boolean claim() {
        checkUnchecked(Call.CLAIM);
        claims++;
        if (!claimable) {
            return false;
        }
        id = id.withEpoch(++epoch);
        return true;
    }

    @Override
    public Optional<OpenedBatch> open(boolean whole, int max) throws LostException {
        check(Call.OPEN);
        return next(max);
    }

    private Optional<OpenedBatch> next(int max) {
        List<Message> batch = queued.poll();
        if (batch == null) {
            return Optional.empty();
        }
        open = batch;
        opened.add(batch.get(0).batchId());
        return Optional.of(new OpenedBatch(page(batch, max), null));
    }

    private static BatchPage page(List<Message> batch, int max) {
        return new BatchPage(batch.get(0).batchId(), batch.subList(0, Math.min(max, batch.size())), batch.size() > max);
    }

    @Override
    public Optional<OpenedBatch> ackAndOpen(long done, boolean whole, int max) throws LostException {
        check(Call.ACK_AND_OPEN);
        finishOpen(done);
        return next(max);
    }

    private void finishOpen(long batchId) {
        if (open == null || open.get(0).batchId() != batchId) {
            throw new AssertionError("batch " + batchId + " acked, but " + openBatch() + " is open");
        }
        acked.add(batchId);
        open = null;
    }

    @Override
    public RestOfBatch readOn(long batchId, long after) throws LostException {
        check(Call.READ_ON);
        List<Message> rest = open.stream().filter(m -> m.msgId() > after).toList();
        restsOpened++;
        return new RestOfBatch() {
            private int at;

            @Override
            public List<Message> next(int max) {
                List<Message> chunk = rest.subList(at, Math.min(at + max, rest.size()));
                at += chunk.size();
                return chunk;
            }

            @Override
            public void close() {
                restsClosed++;
            }
        };
    }

    @Override
    public boolean ack(long batchId) throws LostException {
        check(Call.ACK);
        plainAcks++;
        finishOpen(batchId);
        return true;
    }

    @Override
    public void deadLetter(long msgId, String reason) {
        deadLettered.add(msgId + ": " + reason);
    }

    @Override
    public KeepAlive keepAlive() throws LostException {
        check(Call.KEEP_ALIVE);
        keepAlives++;
        if (keepAliveAnswer == KeepAlive.TAKEN_OVER) {
            id = id.withEpoch(++epoch);
        }
        return keepAliveAnswer;
    }

    @Override
    public void release() {
        checkUnchecked(Call.RELEASE);
        releases++;
    }

    @Override
    public boolean waitsForTicks() {
        return true;
    }

    @Override
    public Optional<AheadReader> ahead() {
        return Optional.ofNullable(ahead);
    }

    /** Reading ahead of the fake's queue, on the test's thread: {@link #finish} completes the read running. */
    final class FakeAhead implements AheadReader {

        private final int pageEvents;
        CompletableFuture<Optional<ReadAhead>> running;
        int started;
        int discarded;
        int openedAhead;

        FakeAhead(int pageEvents) {
            this.pageEvents = pageEvents;
        }

        private boolean finishing;

        @Override
        public CompletableFuture<Optional<ReadAhead>> start(long batchId, boolean large) {
            started++;
            running = new CompletableFuture<>();
            if (finishing) {
                finish();
            }
            return running;
        }

        /** Finishes the read running, and every later one as it starts. */
        void finishFromNowOn() {
            finishing = true;
            if (running != null && !running.isDone()) {
                finish();
            }
        }

        /** The read-ahead running finds the next queued batch (empty when none is). */
        void finish() {
            List<Message> batch = queued.peek();
            running.complete(batch == null ? Optional.empty()
                    : Optional.of(new ReadAhead(1, 2, new OpenedBatch(page(batch, pageEvents), null))));
        }

        void fail() {
            running.completeExceptionally(new RuntimeException("read-ahead failed"));
        }

        @Override
        public CompletableFuture<Optional<ReadAhead>> after(long batchId, CompletableFuture<Optional<ReadAhead>> next) {
            return null;
        }

        /** The fake reads first batches the usual way ({@link FakeReader#open}). */
        @Override
        public Optional<ReadAhead> first() {
            return Optional.empty();
        }

        @Override
        public boolean open(ReadAhead first) {
            throw new AssertionError("the fake reads no first batch ahead");
        }

        @Override
        public int pageEvents() {
            return pageEvents;
        }

        @Override
        public boolean ackAndOpen(long done, ReadAhead read) throws LostException {
            check(Call.OPEN_READ_AHEAD);
            finishOpen(done);
            List<Message> batch = queued.poll();
            if (batch == null || batch.get(0).batchId() != read.batchId()) {
                throw new AssertionError("read ahead " + read.batchId() + " is not the next batch");
            }
            open = batch;
            opened.add(read.batchId());
            return true;
        }

        @Override
        public void opened(ReadAhead read) {
            openedAhead++;
        }

        @Override
        public void discard(ReadAhead read) {
            discarded++;
        }
    }
}

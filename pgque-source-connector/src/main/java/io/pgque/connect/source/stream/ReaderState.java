/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

/**
 * Where one reader of a stream stands. A reader without the right to read is {@link #UNLEASED};
 * with it, it {@link #RESTING rests} until a batch is there, then streams that batch to Kafka a
 * chunk at a time ({@link #STREAMING}, {@link #BACK_PRESSURED} while two chunks wait on Kafka),
 * waits for Kafka's last acknowledgements once every chunk is handed over
 * ({@link #AWAITING_KAFKA}, or {@link #SENT_AHEAD} with the next batch's first chunk already
 * out), and is {@link #DELIVERED} once Kafka has every record (or {@link #AWAITING_READ_AHEAD}
 * while the next batch is still being read ahead). Acking moves it back to resting or straight
 * to streaming the next batch. {@link Lane#state()} works the state out from what the poll thread
 * and Kafka's acknowledgements last did; the poll thread changes it only through
 * {@link Lane#apply}, whose table says which {@link LaneChange} may come from which state.
 */
public enum ReaderState {

    /** No lease: the slot is claimed before anything is read. */
    UNLEASED,
    /** Leased, no batch open: one is received when the reader is due (the poll interval, or a tick). */
    RESTING,
    /** A batch is open, more of it is to be read, and at most one chunk waits on Kafka: read on. */
    STREAMING,
    /** More of the batch is to be read, but two chunks wait on Kafka: the next waits for room. */
    BACK_PRESSURED,
    /** Every chunk is handed over; Kafka has not acknowledged all of them yet. */
    AWAITING_KAFKA,
    /** As {@link #AWAITING_KAFKA}, and the first chunk of the batch read ahead went out already. */
    SENT_AHEAD,
    /** Kafka has the whole batch; the next one is still being read ahead, which is the sooner way on. */
    AWAITING_READ_AHEAD,
    /** Kafka has the whole batch: it is acked (and the next one opened) on the next pass. */
    DELIVERED;

    /** Whether a batch is open. */
    public boolean holdsBatch() {
        return this != UNLEASED && this != RESTING;
    }

    /** Whether records handed to Connect still wait on Kafka. */
    public boolean undelivered() {
        return this == STREAMING || this == BACK_PRESSURED || this == AWAITING_KAFKA || this == SENT_AHEAD;
    }

    /** Whether the reader has work now, without waiting for any time or wake-up. */
    public boolean dueNow() {
        return this == STREAMING || this == DELIVERED;
    }
}

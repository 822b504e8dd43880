/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the events the database refuses, writing all the others, by halving: a chunk that
 * fails is split in two and each half tried on its own, down to single events. Each try is
 * isolated (a savepoint), so a failed try leaves nothing behind and the good halves stay
 * written. Order is kept: the left half is always written before the right one.
 *
 * <p>With k bad events among n, this costs about 2·k·log2(n) statements instead of n.
 */
public final class Bisector {

    /** One isolated try. */
    @FunctionalInterface
    public interface Attempt {
        /**
         * Writes {@code events} as one statement, isolated from the rest of the transaction.
         *
         * @return empty when written; else the reason the database refused them (a record-level
         *         refusal: anything else must be thrown)
         */
        Optional<String> tryWrite(List<PendingEvent> events);
    }

    private final Attempt attempt;

    public Bisector(Attempt attempt) {
        this.attempt = attempt;
    }

    /** Writes what can be written of {@code events}; returns the refused ones, in input order. */
    public List<RejectedEvent> writeAll(List<PendingEvent> events) {
        List<RejectedEvent> rejected = new ArrayList<>();
        narrow(events, rejected);
        return rejected;
    }

    private void narrow(List<PendingEvent> events, List<RejectedEvent> rejected) {
        if (events.isEmpty()) {
            return;
        }
        Optional<String> refusal = attempt.tryWrite(events);
        if (refusal.isEmpty()) {
            return;
        }
        if (events.size() == 1) {
            rejected.add(new RejectedEvent(events.get(0), refusal.get()));
            return;
        }
        int middle = events.size() / 2;
        narrow(events.subList(0, middle), rejected);
        narrow(events.subList(middle, events.size()), rejected);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ticker;

/**
 * What a {@link TickListener} tells its poller: each tick it heard, and whether it hears the
 * queue's ticks at all. Both are called on the listener's thread and must not block.
 */
public interface TickReceiver {

    /** The queue ticked (or may have, unheard: the listener just (re)connected). */
    void tickArrived();

    /**
     * The listener hears ticks: a notification came on its current connection, which proves the
     * engine announces them there ({@code true}); or it no longer does, its connection was lost
     * ({@code false}). Until the first {@code true} the poller must not count on hearing them.
     */
    default void hearing(boolean heard) {
    }
}

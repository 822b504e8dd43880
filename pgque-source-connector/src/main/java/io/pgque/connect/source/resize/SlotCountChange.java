/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.resize;

import io.pgque.client.PgQue;
import io.pgque.client.PgQueException;
import io.pgque.client.ResizeState;
import io.pgque.client.SlotResize;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;

/**
 * What each task does at start with the configured slot count N: subscribes a new consumer
 * with N slots; for an existing one with another N, starts a resize to N (the tasks drain the
 * old slots and complete it); finds a resize already under way and carries it on, or, when the
 * configuration has gone back to the old N or on to a third one, aborts it first (loss-free: the
 * old slots never read past the seal).
 */
public final class SlotCountChange {

    private static final Logger log = LoggerFactory.getLogger(SlotCountChange.class);

    private SlotCountChange() {
    }

    /**
     * Every task calls it at start, so tasks race: one that begins or aborts a resize another
     * task began or aborted a moment earlier gets 55000 (not in this state); it reads the state
     * again and goes on from there.
     */
    public static void apply(PgQue pgque, String queue, String consumer, int slots) {
        for (int attempt = 1; ; attempt++) {
            try {
                applyOnce(pgque, queue, consumer, slots);
                return;
            } catch (PgQueException e) {
                if (!"55000".equals(e.sqlState()) || attempt >= 3) {
                    throw e;
                }
                log.info("Consumer {} on queue {} changed while being set up (another task?); reading its state again: {}",
                        consumer, queue, e.getMessage());
            }
        }
    }

    private static void applyOnce(PgQue pgque, String queue, String consumer, int slots) {
        SlotResize resize = pgque.slotResize(queue, consumer);
        Optional<ResizeState> found = resize.state();
        if (found.isEmpty()) {
            pgque.slotConsumer(queue, consumer, slots, "connector").subscribe();
            log.info("Consumer {} reads queue {} through {} slots", consumer, queue, slots);
            return;
        }
        ResizeState state = found.get();
        if (state.draining()) {
            if (state.newN() == slots) {
                log.info("Carrying on the resize of consumer {} on queue {} from {} to {} slots (seal tick {}); "
                        + "still blocking: {}", consumer, queue, state.n(), slots, state.sealTick(), blocking(state));
                return;
            }
            resize.abort();
            log.info("Aborted the resize of consumer {} on queue {} from {} to {} slots: {} is now {}", consumer,
                    queue, state.n(), state.newN(), "pgque.slots", slots);
            if (state.n() == slots) {
                return;
            }
        } else if (state.n() == slots) {
            log.info("Consumer {} reads queue {} through {} slots", consumer, queue, slots);
            return;
        }
        long seal = resize.begin(slots);
        log.info("Resizing consumer {} on queue {} from {} to {} slots at seal tick {}: the tasks read the old slots "
                + "up to the seal, then switch to the new ones (see pgque.partition_slot_status)", consumer, queue,
                state.n(), slots, seal);
    }

    static String blocking(ResizeState state) {
        return state.blockers().isEmpty() ? "nothing" : String.join("; ", state.blockers());
    }
}

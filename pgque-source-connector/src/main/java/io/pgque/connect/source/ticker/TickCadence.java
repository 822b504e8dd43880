/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ticker;

import java.time.Duration;

/**
 * When the duty's ticker rounds run, and the period each asks {@code ticker_round} for, so that
 * events wait no longer than {@code pgque.ticker.interval.ms} for a tick.
 *
 * <p>A round ticks a queue only once its last tick is a period old, as the database's clock says
 * ({@code now()} of the round's transaction). Rounds run at a fixed rate, one interval after the
 * last one <em>started</em>, so the time a round takes is not added to every period (with a fixed
 * delay, a busy machine stretched every period by the round's own time). They ask for a period a quarter shorter than the interval: a round that starts a
 * few milliseconds early on the database's clock (its transaction began late last time) still
 * ticks, rather than leaving the queue a whole interval more. So while events wait, ticks come
 * at least every interval and, with several tasks running rounds, never more often than every
 * three quarters of it. A round that overruns the interval is followed by the next at once, not
 * by the rounds it missed.
 */
final class TickCadence {

    private final long intervalNanos;
    private final Duration period;

    TickCadence(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the ticker interval must be positive, was " + interval);
        }
        this.intervalNanos = interval.toNanos();
        this.period = interval.minus(interval.dividedBy(4));
    }

    /** The period a round asks {@code ticker_round} for. */
    Duration period() {
        return period;
    }

    /** How long after {@code nowNanos} the next round starts, the last one having started at {@code lastStartNanos}. */
    long delayNanos(long lastStartNanos, long nowNanos) {
        return Math.max(0, lastStartNanos + intervalNanos - nowNanos);
    }
}

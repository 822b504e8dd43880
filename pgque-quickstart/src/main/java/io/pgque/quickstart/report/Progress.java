/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.report;

import java.time.Duration;

/**
 * Where the events are at one moment, for the progress line.
 *
 * @param elapsed      since the demo started sending
 * @param sent         acknowledged on the input topic
 * @param inQueue      committed into the queue by the sink, or -1 if unknown right now
 * @param out          distinct events read from the output topic
 * @param pending      largest pending-event count of any slot, or -1 if unknown
 * @param maxSlotLag   largest slot lag, or null if unknown
 */
public record Progress(Duration elapsed, long sent, long inQueue, long out, long pending, Duration maxSlotLag) {

    public String line() {
        return String.format("%6s  sent %s | in queue %s | out %s | slots: pending %s, lag %s",
                Numbers.seconds(elapsed), Numbers.count(sent), inQueue < 0 ? "?" : Numbers.count(inQueue),
                Numbers.count(out), pending < 0 ? "?" : Numbers.count(pending), Numbers.seconds(maxSlotLag));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.metrics;

/**
 * One slot as the engine last reported it.
 *
 * @param pendingEvents events waiting for the slot (the engine's estimate), or -1 if unknown
 * @param lagMillis     age of the tick the slot has finished up to, or -1 if unknown
 * @param leaseOwner    the worker holding a live lease, or null
 * @param epoch         the slot's lease epoch
 */
public record SlotSample(long pendingEvents, long lagMillis, String leaseOwner, long epoch) {

    public static final SlotSample UNKNOWN = new SlotSample(-1, -1, null, 0);
}

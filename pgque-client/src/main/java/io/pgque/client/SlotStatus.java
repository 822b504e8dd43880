/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.time.Instant;

/**
 * One slot of a partitioned consumer, from the {@code pgque.partition_slot_status} view.
 *
 * @param queueName     the queue
 * @param consumer      the logical consumer name
 * @param slot          slot number, 0..n-1
 * @param n             the consumer's slot count
 * @param leaseOwner    the worker holding a live lease, or null when free or expired
 * @param leaseUntil    when the lease expires (may be in the past), or null
 * @param epoch         the slot's fencing token, raised by every takeover
 * @param lastTick      the tick the slot has finished up to
 * @param pendingEvents estimate of events waiting across the whole queue window for this slot (the view's
 *                      backlog_events: not counting the ids a forced tick drew)
 */
public record SlotStatus(String queueName, String consumer, int slot, int n, String leaseOwner,
                         Instant leaseUntil, long epoch, Long lastTick, Long pendingEvents) {
}

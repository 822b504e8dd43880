/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * A lease on a slot, as returned by a successful claim.
 *
 * @param slot  the slot number
 * @param epoch the slot's fencing token: the same on a renewal, higher after a takeover; stamp it
 *              into side effects so downstream can reject work from a worker that lost the slot
 */
public record SlotLease(int slot, long epoch) {
}

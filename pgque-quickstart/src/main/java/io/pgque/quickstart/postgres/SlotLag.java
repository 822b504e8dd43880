/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.postgres;

import java.time.Duration;

/**
 * How far one slot of the source's consumer is behind.
 *
 * @param slot          slot number 0..N-1
 * @param owner         the worker holding the slot's lease, or null when none does
 * @param epoch         the lease's fencing token; it grows with every takeover
 * @param pendingEvents events sent to the queue since the slot's cursor (all slots' events, so
 *                      an upper bound; 0 means caught up)
 * @param lag           age of the last tick the slot has finished, or null before its first
 */
public record SlotLag(int slot, String owner, long epoch, long pendingEvents, Duration lag) {
}

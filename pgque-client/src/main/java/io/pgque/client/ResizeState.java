/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.List;

/**
 * Where a partitioned consumer stands with respect to resizing, from
 * {@code pgque.partition_slot_status}.
 *
 * @param draining    true while a resize is in progress (between {@code begin_resize} and
 *                    {@code complete_resize} or {@code abort_resize})
 * @param resizeEpoch how many resizes of the consumer have completed
 * @param n           the slot count in force (the old one while draining)
 * @param newN        the slot count being moved to, or null when not draining
 * @param sealTick    the tick that separates the two epochs, or null when not draining
 * @param blockers    while draining, what keeps each old slot from the seal, one text per slot
 *                    ("slot 2: batch 17 is open"); empty when the resize can be completed
 */
public record ResizeState(boolean draining, long resizeEpoch, int n, Integer newN, Long sealTick,
                          List<String> blockers) {

    public ResizeState {
        blockers = List.copyOf(blockers);
    }

    /** True when draining and nothing blocks completion. */
    public boolean ready() {
        return draining && blockers.isEmpty();
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.connect.common.config.EnumChoice;

/** How the tasks share the queue ({@code pgque.mode}). */
public enum SourceMode {
    /** Hash slots with leases: per-key order, at most one task per slot. */
    ORDERED,
    /**
     * Tasks are workers of one cooperative consumer and take whole batches in turn: no per-key
     * order, every event read once, throughput that grows with the tasks. Experimental.
     */
    COOPERATIVE;

    public static final EnumChoice<SourceMode> CHOICE = EnumChoice.of(SourceMode.class);
}

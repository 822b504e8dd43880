/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import io.pgque.connect.common.config.EnumChoice;

/** What the sink does with a record whose value is null. */
public enum TombstoneMode {
    /** Consume it without writing an event. */
    SKIP,
    /** Write an event whose {@code ev_data} is NULL. */
    SEND,
    /** Treat it as a bad record: to the dead letter queue, or the task fails, per errors.tolerance. */
    FAIL;

    public static final EnumChoice<TombstoneMode> CHOICE = EnumChoice.of(TombstoneMode.class);
}

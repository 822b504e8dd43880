/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.connect.common.config.EnumChoice;

/** What an event that cannot become a record does to its key ({@code pgque.failure.policy}). */
public enum FailurePolicy {
    /**
     * Nothing: the event fails the task or goes to the dead letters ({@code errors.tolerance}),
     * and the key's later events go on without it.
     */
    SKIP,
    /**
     * The event is paused in the engine: retried, and its key's later events wait, set aside in
     * order, until it is delivered or dead-lettered; every other key flows.
     */
    PAUSE;

    public static final EnumChoice<FailurePolicy> CHOICE = EnumChoice.of(FailurePolicy.class);
}

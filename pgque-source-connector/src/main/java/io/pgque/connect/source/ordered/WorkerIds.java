/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ordered;

import java.security.SecureRandom;

/**
 * Lease owner names: {@code <connector>-<task>-<random>}. The random part matters: a task that
 * restarts (or a zombie copy of it) must not pass for the previous instance, or the engine's
 * fencing, which compares owner names, could not tell them apart.
 */
public final class WorkerIds {

    private static final SecureRandom RANDOM = new SecureRandom();

    private WorkerIds() {
    }

    public static String next(String connector, int task) {
        return connector + "-" + task + "-" + String.format("%08x", RANDOM.nextInt());
    }
}

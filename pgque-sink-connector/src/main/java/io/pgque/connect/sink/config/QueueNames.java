/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import java.nio.charset.StandardCharsets;

/** What PgQue accepts as a queue name, checked before a name ever reaches the database. */
public final class QueueNames {

    /** The engine's limit (create_queue), in bytes of UTF-8. */
    public static final int MAX_BYTES = 57;

    private QueueNames() {
    }

    /** Why {@code name} cannot name a queue, or null when it can. */
    public static String problem(String name) {
        if (name == null || name.isEmpty()) {
            return "a queue name cannot be empty";
        }
        if (name.indexOf('\u0000') >= 0) {
            return "a queue name cannot contain a NUL character";
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            return "queue name '" + name + "' is " + bytes + " bytes long; PgQue allows at most " + MAX_BYTES;
        }
        return null;
    }
}

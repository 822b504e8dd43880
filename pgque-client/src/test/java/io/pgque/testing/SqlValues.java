/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.testing;

import org.postgresql.util.PGInterval;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Values of the rows the engine's monitoring functions return, as the tests compare them. */
public final class SqlValues {

    private SqlValues() {
    }

    /** An integer column of any width; it must not be NULL. */
    public static long asLong(Object value) {
        assertNotNull(value);
        return ((Number) value).longValue();
    }

    /** An interval column in seconds (days as 24 hours); it must be an interval. */
    public static double seconds(Object interval) {
        assertTrue(interval instanceof PGInterval, "an interval: " + interval);
        PGInterval i = (PGInterval) interval;
        return ((i.getDays() * 24.0 + i.getHours()) * 60 + i.getMinutes()) * 60 + i.getSeconds();
    }
}

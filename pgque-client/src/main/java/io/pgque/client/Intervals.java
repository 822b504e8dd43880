/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Objects;

/**
 * Passing a {@link Duration} to the engine. SQL text uses {@link #PARAM} in place of an interval
 * parameter and binds {@link #seconds(Duration)} to it, so no value ever becomes SQL text.
 */
final class Intervals {

    /** An interval parameter, bound as seconds (double precision). */
    static final String PARAM = "make_interval(secs => ?)";

    private Intervals() {
    }

    static double seconds(Duration d) {
        Objects.requireNonNull(d, "duration");
        return d.getSeconds() + d.getNano() / 1_000_000_000.0;
    }

    /** Interval input text such as {@code 2.5 seconds}, for parameters the engine takes as text. */
    static String text(Duration d) {
        Objects.requireNonNull(d, "duration");
        BigDecimal secs = BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9));
        return secs.stripTrailingZeros().toPlainString() + " seconds";
    }
}

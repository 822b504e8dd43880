/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * A numeric range that also accepts "not set" (null). Kafka's own {@code Range} rejects null,
 * which would force a made-up default onto keys whose absence means something.
 */
public final class OptionalRange implements ConfigDef.Validator {

    private final long min;
    private final long max;

    private OptionalRange(long min, long max) {
        this.min = min;
        this.max = max;
    }

    public static OptionalRange between(long min, long max) {
        return new OptionalRange(min, max);
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (value == null) {
            return;
        }
        long number = ((Number) value).longValue();
        if (number < min || number > max) {
            throw new ConfigException(name, value, "must be between " + min + " and " + max + " (or not set)");
        }
    }

    @Override
    public String toString() {
        return "[" + min + ",...," + max + "] or not set";
    }
}

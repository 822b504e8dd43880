/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

import java.util.Map;
import java.util.Optional;

/**
 * Connect's {@code value.converter} as a connector sees it: only the converter named in the
 * connector's own configuration is visible (the worker's default is not), so rules that pair a
 * value format with a converter can check that one and must let an unnamed converter pass.
 */
public final class ValueConverter {

    /** Connect's own key. */
    public static final String KEY = "value.converter";
    public static final String STRING = "org.apache.kafka.connect.storage.StringConverter";
    public static final String BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter";
    public static final String JSON = "org.apache.kafka.connect.json.JsonConverter";

    private ValueConverter() {
    }

    /**
     * The class name of the converter {@code config} names, or empty when it names none. The value
     * may be a Class (AbstractConfig's originals keep what they were given) or its name.
     */
    public static Optional<String> named(Map<String, ?> config) {
        Object converter = config.get(KEY);
        if (converter instanceof Class) {
            return Optional.of(((Class<?>) converter).getName());
        }
        return converter == null || converter.toString().isBlank() ? Optional.empty()
                : Optional.of(converter.toString().trim());
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where an event's partition key ({@code ev_extra1}) comes from: the record key, one header, or
 * nowhere. Not an {@code EnumChoice} because {@code header:NAME} carries a name of its own.
 */
public final class PartitionKeySource {

    public enum Kind { RECORD_KEY, HEADER, NONE }

    public static final String RECORD_KEY = "record_key";
    public static final String NONE = "none";
    public static final String HEADER_PREFIX = "header:";
    private static final String ALLOWED = RECORD_KEY + ", " + HEADER_PREFIX + "NAME, " + NONE;

    private final Kind kind;
    private final String headerName;

    private PartitionKeySource(Kind kind, String headerName) {
        this.kind = kind;
        this.headerName = headerName;
    }

    /**
     * Reads {@code record_key}, {@code none} or {@code header:NAME}; the keywords ignore case,
     * the header name is kept exactly as written (Kafka header names are case-sensitive).
     */
    public static PartitionKeySource parse(String key, String text) {
        String value = text == null ? "" : text.trim();
        if (value.equalsIgnoreCase(RECORD_KEY)) {
            return new PartitionKeySource(Kind.RECORD_KEY, null);
        }
        if (value.equalsIgnoreCase(NONE)) {
            return new PartitionKeySource(Kind.NONE, null);
        }
        if (value.regionMatches(true, 0, HEADER_PREFIX, 0, HEADER_PREFIX.length())) {
            String name = value.substring(HEADER_PREFIX.length());
            if (name.isEmpty()) {
                throw new ConfigException(key, text, "header: needs a header name, as in header:NAME");
            }
            return new PartitionKeySource(Kind.HEADER, name);
        }
        throw new ConfigException(key, text, "must be one of " + ALLOWED + " (keywords case-insensitive)");
    }

    public static ConfigDef.Validator validator() {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                parse(name, value == null ? null : value.toString());
            }

            @Override
            public String toString() {
                return "[" + ALLOWED + "]";
            }
        };
    }

    /** Offers the two fixed values; header:NAME has to be typed. */
    public static ConfigDef.Recommender recommender() {
        return new ConfigDef.Recommender() {
            @Override
            public List<Object> validValues(String name, Map<String, Object> parsedConfig) {
                return List.of(RECORD_KEY, NONE);
            }

            @Override
            public boolean visible(String name, Map<String, Object> parsedConfig) {
                return true;
            }
        };
    }

    public Kind kind() {
        return kind;
    }

    /** The header name for {@link Kind#HEADER}, else null. */
    public String headerName() {
        return headerName;
    }

    @Override
    public String toString() {
        return kind == Kind.HEADER ? HEADER_PREFIX + headerName : kind.name().toLowerCase(Locale.ROOT);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.template;

import java.util.Collection;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/** The kinds of {@code ${...}} placeholder a template may contain; each use allows a subset. */
public enum PlaceholderKind {
    /** {@code ${topic}}: the record's topic. */
    TOPIC("topic"),
    /** {@code ${partition}}: the record's Kafka partition. */
    PARTITION("partition"),
    /** {@code ${offset}}: the record's Kafka offset. */
    OFFSET("offset"),
    /** {@code ${key}}: the record key as text. */
    KEY("key"),
    /** {@code ${header:NAME}}: one header's value as text. */
    HEADER("header:"),
    /** {@code ${headers}}: every header, as one JSON object. */
    HEADERS("headers"),
    /** {@code ${type}}: the PgQue event type (source side). */
    TYPE("type");

    private final String token;

    PlaceholderKind(String token) {
        this.token = token;
    }

    /** What follows "${": the whole name, or for {@link #HEADER} the prefix before the header name. */
    String token() {
        return token;
    }

    /** How the placeholder is written, for documentation and error messages. */
    public String syntax() {
        return this == HEADER ? "${header:NAME}" : "${" + token + "}";
    }

    /** The syntax of each kind in {@code kinds}, comma-separated, in declaration order. */
    public static String describe(Collection<PlaceholderKind> kinds) {
        Set<PlaceholderKind> sorted = kinds.isEmpty() ? EnumSet.noneOf(PlaceholderKind.class) : EnumSet.copyOf(kinds);
        return sorted.stream().map(PlaceholderKind::syntax).collect(Collectors.joining(", "));
    }
}

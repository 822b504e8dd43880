/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.connect.common.config.EnumChoice;

/** How an event's payload ({@code ev_data}) becomes the Kafka record value. */
public enum ValueFormat {
    /** The payload text as is, with an optional string schema. */
    STRING,
    /** The payload parsed as JSON into schemaless Maps, Lists and scalars. */
    JSON,
    /** The whole event as a Struct with a declared schema, for schema-based converters. */
    ENVELOPE,
    /**
     * The payload's UTF-8 bytes as the database sent them, with an optional bytes schema, for
     * {@code ByteArrayConverter}: the same bytes in Kafka as {@link #STRING} with
     * {@code StringConverter}, without decoding the text and encoding it again.
     */
    BYTES;

    public static final EnumChoice<ValueFormat> CHOICE = EnumChoice.of(ValueFormat.class);
}

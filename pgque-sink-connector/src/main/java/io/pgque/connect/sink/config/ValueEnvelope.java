/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import io.pgque.connect.common.config.EnumChoice;

import java.util.Locale;

/** Whether record values arrive wrapped in an envelope that the sink opens itself. */
public enum ValueEnvelope {
    /** The value is the payload, as the converter made it. */
    NONE,
    /**
     * The value is JsonConverter's {@code {"schema": ..., "payload": ...}} text, left as bytes or a
     * String by ByteArrayConverter or StringConverter; the sink stores the payload as JSON.
     */
    CONNECT_JSON;

    public static final EnumChoice<ValueEnvelope> CHOICE = EnumChoice.of(ValueEnvelope.class,
            envelope -> envelope.name().toLowerCase(Locale.ROOT).replace('_', '-'));
}

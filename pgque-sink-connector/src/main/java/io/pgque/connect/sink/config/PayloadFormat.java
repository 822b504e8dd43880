/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import io.pgque.connect.common.config.EnumChoice;

/** How a record value becomes the text of {@code ev_data}. */
public enum PayloadFormat {
    /** JSON text; a String or bytes value must already be valid JSON. */
    JSON,
    /** Text as is; structured values are written as JSON. */
    STRING,
    /** Base64 of the value's bytes (a String's UTF-8, a structured value's JSON). */
    BASE64;

    public static final EnumChoice<PayloadFormat> CHOICE = EnumChoice.of(PayloadFormat.class);
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import io.pgque.connect.sink.config.PayloadFormat;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;

/**
 * A non-null record value as the text of {@code ev_data}, per {@code pgque.payload.format}. One
 * per task thread: it keeps a JSON generator from one record to the next.
 */
final class PayloadEncoder {

    private static final String WHAT = "value";

    private final PayloadFormat format;
    private final JsonText.Output output = new JsonText.Output();

    PayloadEncoder(PayloadFormat format) {
        this.format = format;
    }

    String encode(Schema schema, Object value) {
        switch (format) {
            case JSON:
                return json(schema, value);
            case STRING:
                return text(schema, value);
            case BASE64:
                return Bytes.isBytes(value) && raw(schema, value) ? Bytes.base64(value)
                        : Base64.getEncoder().encodeToString(text(schema, value).getBytes(StandardCharsets.UTF_8));
            default:
                throw new IllegalStateException("unhandled payload format " + format);
        }
    }

    // Text that claims to be JSON is passed through unchanged once it is known to be JSON;
    // everything else is converted, so the payload is always one valid JSON value.
    private String json(Schema schema, Object value) {
        if (raw(schema, value)) {
            return jsonText(value instanceof String ? (String) value : Utf8.decode(Bytes.buffer(value), WHAT));
        }
        return ConnectJson.text(output, schema, value);
    }

    /** Text a String (or bytes) value brings as its payload, once it is known to be one JSON value. */
    static String jsonText(String text) {
        // Checked before parsing so the reason names the real problem rather than a JSON error.
        Nul.check("payload", text);
        JsonText.requireJson(text, WHAT);
        return text;
    }

    // Scalars as their plain text (a date is 2024-01-31, not "2024-01-31"); structures as JSON.
    private String text(Schema schema, Object value) {
        if (raw(schema, value)) {
            return value instanceof String ? (String) value : Utf8.decode(Bytes.buffer(value), WHAT);
        }
        // Writing it as JSON also checks the value against its schema, for scalars too.
        String json = ConnectJson.text(output, schema, value);
        if (value instanceof Struct || value instanceof Map || value instanceof Collection) {
            return json;
        }
        return KeyText.of(schema, value);
    }

    /** A String or bytes value that its schema (if any) agrees is text or plain bytes. */
    private static boolean raw(Schema schema, Object value) {
        if (value instanceof String) {
            return schema == null || schema.type() == Schema.Type.STRING;
        }
        if (Bytes.isBytes(value)) {
            return schema == null || (schema.type() == Schema.Type.BYTES && !Decimal.LOGICAL_NAME.equals(schema.name()));
        }
        return false;
    }
}

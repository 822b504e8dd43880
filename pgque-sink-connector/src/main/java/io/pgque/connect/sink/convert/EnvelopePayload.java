/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import org.apache.kafka.connect.data.Decimal;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Writes the {@code payload} of a JsonConverter envelope as the JSON text the Struct path would
 * store for it (JsonConverter's Struct, then {@link ConnectJson}), token by token: no tree, no
 * Struct. Struct members come out in schema order, missing and null ones as their default (or
 * null), unknown ones dropped; numbers are written from their schema type (1 in a double field is
 * 1.0); logical types as ConnectJson writes them (decimals as plain numbers, dates and times as
 * ISO-8601 text); bytes as base64; map keys that are not strings as their key text.
 *
 * <p>Two differences, by design: a value whose JSON type does not fit its schema type is refused
 * (where JsonConverter would store 0 for the text "abc" in an int32 field, or wrap a number too
 * large for it), and map members keep the order the producer wrote (JsonConverter reads a map into
 * a HashMap, so on the Struct path they come out in hash order).
 *
 * <p>Payloads as JsonConverter writes them have their struct members in schema order and each
 * member once, and are written in one pass. Anything else (members out of order, repeated, or
 * a required one missing) is read again in a second pass that gathers each object's members
 * first, so such payloads get the same text, only slower.
 */
final class EnvelopePayload {

    /** Thrown in the first pass when the payload needs the second; carries nothing. */
    private static final class Irregular extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private static final Irregular INSTANCE = new Irregular();

        private Irregular() {
            super(null, null, false, false);
        }
    }

    private boolean gathering;

    /** Reads one value from {@code in}, which is positioned on its first token, and writes it. */
    void write(JsonParser in, EnvelopeSchema schema, JsonGenerator out, boolean gather) throws IOException {
        gathering = gather;
        value(in, schema, out);
    }

    /** Signals, in the first pass, that only the second pass can write this payload. */
    static boolean isIrregular(RuntimeException e) {
        return e instanceof Irregular;
    }

    /** The JSON text of a schema's {@code default}, written as a payload value of that schema. */
    String defaultText(JsonNode json, EnvelopeSchema schema, String path) {
        try (JsonParser in = json.traverse()) {
            in.nextToken();
            return JsonText.write(out -> write(in, schema, out, true));
        } catch (RecordRejectedException e) {
            throw new RecordRejectedException("the envelope's " + path + " has a default that does not fit it: "
                    + e.getMessage());
        } catch (IOException e) {
            throw new RecordRejectedException("the envelope's " + path + " has an unreadable default");
        }
    }

    private void value(JsonParser in, EnvelopeSchema schema, JsonGenerator out) throws IOException {
        JsonToken token = in.currentToken();
        if (token == JsonToken.VALUE_NULL) {
            nullValue(in, schema, out);
            return;
        }
        switch (schema.kind) {
            case STRING -> {
                expect(in, token == JsonToken.VALUE_STRING, schema);
                out.writeString(in.getTextCharacters(), in.getTextOffset(), in.getTextLength());
            }
            case INT8, INT16, INT32 -> out.writeNumber(integer(in, schema));
            case INT64 -> out.writeNumber(longInteger(in, schema));
            case FLOAT32 -> out.writeNumber(float32(in, schema));
            case FLOAT64 -> out.writeNumber(float64(in, schema));
            case BOOLEAN -> out.writeBoolean(bool(in, schema));
            case BYTES, DECIMAL, DATE, TIME, TIMESTAMP -> ConnectJson.write(out, schema.connect, scalar(in, schema));
            case ARRAY -> array(in, schema, out);
            case MAP -> {
                if (schema.stringKeys()) {
                    objectMap(in, schema, out);
                } else {
                    pairMap(in, schema, out);
                }
            }
            case STRUCT -> {
                if (gathering) {
                    gatheredStruct(in, schema, out);
                } else {
                    struct(in, schema, out);
                }
            }
            case ANY -> schemaless(in, out);
            default -> throw new IllegalStateException("unhandled kind " + schema.kind);
        }
    }

    // As JsonConverter reads null or a missing member: the schema's default, else null if the
    // schema allows it.
    private static void nullValue(JsonParser in, EnvelopeSchema schema, JsonGenerator out) throws IOException {
        if (schema.defaultJson() != null) {
            out.writeRawValue(schema.defaultJson());
        } else if (schema.optional || schema.kind == EnvelopeSchema.Kind.ANY) {
            out.writeNull();
        } else {
            throw rejected(in, "null, but its schema (" + describe(schema) + ") is required and has no default");
        }
    }

    private void array(JsonParser in, EnvelopeSchema schema, JsonGenerator out) throws IOException {
        expect(in, in.currentToken() == JsonToken.START_ARRAY, schema);
        out.writeStartArray();
        while (in.nextToken() != JsonToken.END_ARRAY) {
            value(in, schema.items, out);
        }
        out.writeEndArray();
    }

    private void struct(JsonParser in, EnvelopeSchema schema, JsonGenerator out) throws IOException {
        expect(in, in.currentToken() == JsonToken.START_OBJECT, schema);
        out.writeStartObject();
        int next = 0;
        while (in.nextToken() == JsonToken.FIELD_NAME) {
            int index = schema.fieldIndex(in.currentName(), next);
            in.nextToken();
            if (index < 0) {
                in.skipChildren();
                continue;
            }
            if (index < next) {
                throw Irregular.INSTANCE;
            }
            for (; next < index; next++) {
                missing(in, schema, next, out);
            }
            out.writeFieldName(schema.fieldNames[index]);
            value(in, schema.fields[index], out);
            next = index + 1;
        }
        for (; next < schema.fields.length; next++) {
            missing(in, schema, next, out);
        }
        out.writeEndObject();
    }

    // A field not (yet) seen. If it has no default and is required, it may still come later,
    // out of order: only the second pass can tell.
    private void missing(JsonParser in, EnvelopeSchema schema, int field, JsonGenerator out) throws IOException {
        EnvelopeSchema fieldSchema = schema.fields[field];
        if (!gathering && fieldSchema.defaultJson() == null && !fieldSchema.optional) {
            throw Irregular.INSTANCE;
        }
        out.writeFieldName(schema.fieldNames[field]);
        try {
            nullValue(in, fieldSchema, out);
        } catch (RecordRejectedException e) {
            throw rejected(in, "missing the member \"" + schema.fieldNames[field] + "\", which its schema requires");
        }
    }

    // Second pass: members are gathered first, the last of a repeated name winning as in
    // JsonConverter, then written in schema order.
    private void gatheredStruct(JsonParser in, EnvelopeSchema schema, JsonGenerator out) throws IOException {
        expect(in, in.currentToken() == JsonToken.START_OBJECT, schema);
        TokenBuffer[] members = new TokenBuffer[schema.fields.length];
        while (in.nextToken() == JsonToken.FIELD_NAME) {
            int index = schema.fieldIndex(in.currentName(), 0);
            in.nextToken();
            if (index < 0) {
                in.skipChildren();
            } else {
                members[index] = copy(in);
            }
        }
        out.writeStartObject();
        for (int i = 0; i < members.length; i++) {
            if (members[i] == null) {
                missing(in, schema, i, out);
            } else {
                out.writeFieldName(schema.fieldNames[i]);
                replay(members[i], schema.fields[i], out);
            }
        }
        out.writeEndObject();
    }

    private void objectMap(JsonParser in, EnvelopeSchema schema, JsonGenerator out) throws IOException {
        expect(in, in.currentToken() == JsonToken.START_OBJECT, schema);
        if (gathering) {
            Map<String, TokenBuffer> members = new LinkedHashMap<>();
            while (in.nextToken() == JsonToken.FIELD_NAME) {
                String name = in.currentName();
                in.nextToken();
                members.put(name, copy(in));
            }
            writeGathered(members, schema.values, out);
            return;
        }
        out.writeStartObject();
        MemberNames names = new MemberNames();
        while (in.nextToken() == JsonToken.FIELD_NAME) {
            String name = in.currentName();
            names.add(name);
            out.writeFieldName(name);
            in.nextToken();
            value(in, schema.values, out);
        }
        out.writeEndObject();
    }

    // A map whose keys are not strings: JsonConverter writes it as an array of [key, value] pairs.
    private void pairMap(JsonParser in, EnvelopeSchema schema, JsonGenerator out) throws IOException {
        expect(in, in.currentToken() == JsonToken.START_ARRAY, schema);
        Map<String, TokenBuffer> gathered = gathering ? new LinkedHashMap<>() : null;
        MemberNames names = new MemberNames();
        if (!gathering) {
            out.writeStartObject();
        }
        while (in.nextToken() != JsonToken.END_ARRAY) {
            if (in.currentToken() != JsonToken.START_ARRAY) {
                throw rejected(in, "an entry of a map with " + describe(schema.keys) + " keys, which must be a "
                        + "[key, value] array, is " + tokenType(in.currentToken()));
            }
            in.nextToken();
            String key = in.currentToken() == JsonToken.END_ARRAY ? null : keyText(in, schema.keys);
            if (key == null) {
                throw rejected(in, "a map entry has no key or a null key, which JSON cannot represent");
            }
            if (in.nextToken() == JsonToken.END_ARRAY) {
                throw rejected(in, "a map entry has a key but no value; entries are [key, value] arrays");
            }
            if (gathering) {
                gathered.put(key, copy(in));
            } else {
                names.add(key);
                out.writeFieldName(key);
                value(in, schema.values, out);
            }
            if (in.nextToken() != JsonToken.END_ARRAY) {
                throw rejected(in, "a map entry has more than a key and a value; entries are [key, value] arrays");
            }
        }
        if (gathering) {
            writeGathered(gathered, schema.values, out);
        } else {
            out.writeEndObject();
        }
    }

    private void schemaless(JsonParser in, JsonGenerator out) throws IOException {
        switch (in.currentToken()) {
            case START_OBJECT -> objectMap(in, EnvelopeSchema.SCHEMALESS_OBJECT, out);
            case START_ARRAY -> {
                out.writeStartArray();
                while (in.nextToken() != JsonToken.END_ARRAY) {
                    schemaless(in, out);
                }
                out.writeEndArray();
            }
            case VALUE_STRING -> out.writeString(in.getTextCharacters(), in.getTextOffset(), in.getTextLength());
            // Without a schema JsonConverter reads integers as int64 and other numbers as float64.
            case VALUE_NUMBER_INT -> out.writeNumber(longInteger(in, EnvelopeSchema.SCHEMALESS));
            case VALUE_NUMBER_FLOAT -> out.writeNumber(float64(in, EnvelopeSchema.SCHEMALESS));
            case VALUE_TRUE, VALUE_FALSE -> out.writeBoolean(in.currentToken() == JsonToken.VALUE_TRUE);
            case VALUE_NULL -> out.writeNull();
            default -> throw rejected(in, "an unexpected " + tokenType(in.currentToken()));
        }
    }

    /**
     * The member names of one JSON object so far, to find a repeated one (which only the second
     * pass writes as JsonConverter reads it); no set is made for an object of one member.
     */
    private static final class MemberNames {
        private String first;
        private Set<String> all;

        void add(String name) {
            if (first == null) {
                first = name;
                return;
            }
            if (all == null) {
                all = new HashSet<>();
                all.add(first);
            }
            if (!all.add(name)) {
                throw Irregular.INSTANCE;
            }
        }
    }

    private void writeGathered(Map<String, TokenBuffer> members, EnvelopeSchema values, JsonGenerator out)
            throws IOException {
        out.writeStartObject();
        for (Map.Entry<String, TokenBuffer> member : members.entrySet()) {
            out.writeFieldName(member.getKey());
            replay(member.getValue(), values, out);
        }
        out.writeEndObject();
    }

    private static TokenBuffer copy(JsonParser in) throws IOException {
        TokenBuffer buffer = new TokenBuffer(in, null);
        // Numbers keep every digit, as JsonConverter reads them (a decimal's 5.00 stays 5.00).
        buffer.forceUseOfBigDecimal(true);
        buffer.copyCurrentStructure(in);
        return buffer;
    }

    private void replay(TokenBuffer member, EnvelopeSchema schema, JsonGenerator out) throws IOException {
        try (JsonParser again = member.asParser()) {
            again.nextToken();
            value(again, schema, out);
        }
    }

    /** A scalar as the Java value Connect uses for its schema (for ConnectJson and KeyText). */
    private static Object scalar(JsonParser in, EnvelopeSchema schema) throws IOException {
        return switch (schema.kind) {
            case BOOLEAN -> bool(in, schema);
            case INT8 -> (byte) integer(in, schema);
            case INT16 -> (short) integer(in, schema);
            case INT32 -> integer(in, schema);
            case INT64 -> longInteger(in, schema);
            case FLOAT32 -> float32(in, schema);
            case FLOAT64 -> float64(in, schema);
            case STRING -> {
                expect(in, in.currentToken() == JsonToken.VALUE_STRING, schema);
                yield in.getText();
            }
            case BYTES -> base64(in, schema);
            case DECIMAL -> decimal(in, schema);
            // Connect's Date is days since the epoch and Time milliseconds since midnight, both
            // int32 (a JSON number that fits an int, as JsonConverter requires).
            case DATE -> new java.util.Date(intOnly(in, schema) * 86_400_000L);
            case TIME -> {
                int millis = intOnly(in, schema);
                if (millis < 0 || millis > 86_400_000) {
                    throw rejected(in, "a Time of " + millis + " ms, outside 0 to 86400000 (one day)");
                }
                yield new java.util.Date(millis);
            }
            case TIMESTAMP -> new java.util.Date(longInteger(in, schema));
            default -> throw rejected(in, "a map key of schema " + describe(schema)
                    + ", which this sink cannot write as JSON member names; use JsonConverter for such maps");
        };
    }

    private static String keyText(JsonParser in, EnvelopeSchema keys) throws IOException {
        if (in.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        return KeyText.of(keys.connect, scalar(in, keys));
    }

    private static boolean bool(JsonParser in, EnvelopeSchema schema) throws IOException {
        JsonToken token = in.currentToken();
        expect(in, token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE, schema);
        return token == JsonToken.VALUE_TRUE;
    }

    private static int integer(JsonParser in, EnvelopeSchema schema) throws IOException {
        long value = longInteger(in, schema);
        long min = schema.kind == EnvelopeSchema.Kind.INT8 ? Byte.MIN_VALUE
                : schema.kind == EnvelopeSchema.Kind.INT16 ? Short.MIN_VALUE : Integer.MIN_VALUE;
        long max = schema.kind == EnvelopeSchema.Kind.INT8 ? Byte.MAX_VALUE
                : schema.kind == EnvelopeSchema.Kind.INT16 ? Short.MAX_VALUE : Integer.MAX_VALUE;
        if (value < min || value > max) {
            throw rejected(in, "a number outside the range of " + describe(schema));
        }
        return (int) value;
    }

    private static long longInteger(JsonParser in, EnvelopeSchema schema) throws IOException {
        expect(in, in.currentToken() == JsonToken.VALUE_NUMBER_INT, schema);
        try {
            return in.getLongValue();
        } catch (InputCoercionException e) {
            throw rejected(in, "a number outside the range of " + describe(schema));
        }
    }

    private static int intOnly(JsonParser in, EnvelopeSchema schema) throws IOException {
        expect(in, in.currentToken() == JsonToken.VALUE_NUMBER_INT, schema);
        if (in.getNumberType() != JsonParser.NumberType.INT) {
            throw rejected(in, "a number outside the range of " + describe(schema));
        }
        return in.getIntValue();
    }

    // Parsed from the text, as JsonConverter's BigDecimal becomes a float: no double in between.
    // JsonConverter reads numbers as BigDecimal, which has no negative zero: -0.0 becomes 0.0
    // (adding 0 does that and changes no other value).
    private static float float32(JsonParser in, EnvelopeSchema schema) throws IOException {
        expect(in, in.currentToken().isNumeric(), schema);
        return Float.parseFloat(in.getText()) + 0.0f;
    }

    private static double float64(JsonParser in, EnvelopeSchema schema) throws IOException {
        expect(in, in.currentToken().isNumeric(), schema);
        return in.getDoubleValue() + 0.0;
    }

    private static byte[] base64(JsonParser in, EnvelopeSchema schema) throws IOException {
        expect(in, in.currentToken() == JsonToken.VALUE_STRING, schema);
        try {
            return in.getBinaryValue();
        } catch (IOException | IllegalArgumentException e) {
            throw rejected(in, "text that is not base64, for " + describe(schema));
        }
    }

    // A decimal is a JSON number (decimal.format=NUMERIC) or the base64 of its unscaled
    // two's-complement bytes (BASE64, JsonConverter's default).
    private static BigDecimal decimal(JsonParser in, EnvelopeSchema schema) throws IOException {
        if (in.currentToken().isNumeric()) {
            return in.getDecimalValue();
        }
        expect(in, in.currentToken() == JsonToken.VALUE_STRING, schema);
        byte[] unscaled = base64(in, schema);
        if (unscaled.length == 0) {
            throw rejected(in, "an empty value for " + describe(schema));
        }
        return Decimal.toLogical(schema.connect, unscaled);
    }

    private static void expect(JsonParser in, boolean fits, EnvelopeSchema schema) {
        if (!fits) {
            throw rejected(in, tokenType(in.currentToken()) + " where its schema wants " + describe(schema));
        }
    }

    private static RecordRejectedException rejected(JsonParser in, String problem) {
        String at = in.getParsingContext() == null ? "" : in.getParsingContext().pathAsPointer().toString();
        return new RecordRejectedException("the payload" + (at.isEmpty() ? "" : " at " + at) + " is " + problem);
    }

    private static String describe(EnvelopeSchema schema) {
        return switch (schema.kind) {
            case DECIMAL -> "a Decimal";
            case DATE -> "a Date";
            case TIME -> "a Time";
            case TIMESTAMP -> "a Timestamp";
            case ANY -> "any JSON value";
            case INT8, INT16, INT32, INT64, ARRAY -> "an " + schema.kind.name().toLowerCase(java.util.Locale.ROOT);
            default -> "a " + schema.kind.name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    private static String tokenType(JsonToken token) {
        if (token == null) {
            return "nothing";
        }
        return switch (token) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT -> "an integer";
            case VALUE_NUMBER_FLOAT -> "a number with a fraction or exponent";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> "a " + token;
        };
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import io.pgque.connect.sink.config.PgQueSinkConfig;
import io.pgque.connect.sink.config.ValueEnvelope;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code pgque.value.envelope=connect-json}: the payload of JsonConverter's
 * {@code {"schema": ..., "payload": ...}} text, as JSON, read from the value's bytes (or String)
 * without a Struct; see {@link EnvelopePayload} for how it is written.
 *
 * <p>A topic's records nearly all carry the same schema text, so each distinct schema is read
 * once and kept, and so is the text in front of the payload ({@code {"schema":...,"payload":}).
 * A value that starts with text already seen has its payload parsed from there: the schema is
 * compared byte for byte, not parsed. Any other value is read in full (which also gives the
 * exact reason when it is not an envelope). One instance per task: it is not thread-safe.
 */
final class ConnectJsonEnvelope {

    private static final int SCHEMAS_KEPT = 64;
    private static final int PREFIXES_KEPT = 16;
    private static final String WHAT = "value (" + PgQueSinkConfig.VALUE_ENVELOPE + "="
            + ValueEnvelope.CHOICE.label(ValueEnvelope.CONNECT_JSON) + ")";

    /** The bytes of an envelope up to its payload, and the schema they hold. */
    private record Prefix(byte[] bytes, EnvelopeSchema schema) {
    }

    /** A schema's text, as a map key. */
    private record SchemaText(byte[] bytes, int hash) {
        static SchemaText of(byte[] envelope, int from, int to) {
            byte[] bytes = Arrays.copyOfRange(envelope, from, to);
            return new SchemaText(bytes, Arrays.hashCode(bytes));
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof SchemaText that && hash == that.hash && Arrays.equals(bytes, that.bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private final EnvelopePayload writer = new EnvelopePayload();
    private final JsonText.Output output = new JsonText.Output();
    private final Map<SchemaText, EnvelopeSchema> schemas = new HashMap<>();
    /** Most recently matched first. */
    private final Deque<Prefix> prefixes = new ArrayDeque<>();

    /**
     * The payload of the envelope {@code value} as JSON text, or null when the payload is null
     * (a tombstone, as on the Struct path).
     *
     * @throws RecordRejectedException naming the key, when the value is not such an envelope or
     *         its payload does not fit its schema
     */
    String payload(Object value) {
        try {
            byte[] bytes = bytesOf(value);
            Prefix prefix = knownPrefix(bytes);
            if (prefix != null) {
                int end = closingBrace(bytes);
                if (end > prefix.bytes().length) {
                    try {
                        return payload(bytes, prefix.bytes().length, end, prefix.schema(), true);
                    } catch (ReadInFull e) {
                        // Something else follows the payload, or it is not JSON: the full read says which.
                    }
                }
            }
            return readInFull(bytes);
        } catch (RecordRejectedException e) {
            throw new RecordRejectedException(WHAT + ": " + e.getMessage());
        }
    }

    /** Thrown on the fast path when the text after the known prefix is not just the payload. */
    private static final class ReadInFull extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private static final ReadInFull INSTANCE = new ReadInFull();

        private ReadInFull() {
            super(null, null, false, false);
        }
    }

    private static byte[] bytesOf(Object value) {
        if (value instanceof String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        if (Bytes.isBytes(value)) {
            return Bytes.array(value);
        }
        throw new RecordRejectedException("is a " + value.getClass().getSimpleName() + ", not the envelope's text: "
                + "use value.converter=org.apache.kafka.connect.converters.ByteArrayConverter (or StringConverter)");
    }

    private Prefix knownPrefix(byte[] bytes) {
        for (Prefix prefix : prefixes) {
            byte[] known = prefix.bytes();
            if (bytes.length > known.length && Arrays.equals(bytes, 0, known.length, known, 0, known.length)) {
                if (prefixes.peekFirst() != prefix) {
                    prefixes.remove(prefix);
                    prefixes.addFirst(prefix);
                }
                return prefix;
            }
        }
        return null;
    }

    // The index of the envelope's closing brace: the last byte but for trailing whitespace.
    private static int closingBrace(byte[] bytes) {
        int end = bytes.length - 1;
        while (end >= 0 && (bytes[end] == ' ' || bytes[end] == '\n' || bytes[end] == '\r' || bytes[end] == '\t')) {
            end--;
        }
        return end >= 0 && bytes[end] == '}' ? end : -1;
    }

    /** Finds the two members, checking the whole text is one such object, then writes the payload. */
    private String readInFull(byte[] bytes) {
        int schemaStart = -1;
        int schemaEnd = -1;
        int payloadStart = -1;
        int payloadEnd = -1;
        boolean foreign = false;
        try (JsonParser in = JsonText.parser(bytes, 0, bytes.length)) {
            JsonToken first = in.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new RecordRejectedException(first == null ? "is empty, not a JsonConverter envelope"
                        : "is not a JsonConverter envelope: not a JSON object");
            }
            while (in.nextToken() == JsonToken.FIELD_NAME) {
                String name = in.currentName();
                in.nextToken();
                int start = (int) in.currentTokenLocation().getByteOffset();
                in.skipChildren();
                in.finishToken();
                int end = (int) in.currentLocation().getByteOffset();
                if (name.equals("schema") && schemaStart < 0) {
                    schemaStart = start;
                    schemaEnd = end;
                } else if (name.equals("payload") && payloadStart < 0) {
                    payloadStart = start;
                    payloadEnd = end;
                } else {
                    foreign = true;
                }
            }
            if (in.nextToken() != null) {
                throw new RecordRejectedException("is not one JSON value: more text follows the envelope");
            }
        } catch (StreamReadException e) {
            throw new RecordRejectedException("is not JSON: syntax error at " + JsonText.position(e.getLocation()));
        } catch (IOException e) {
            throw new RecordRejectedException("could not be read as JSON: " + e.getClass().getSimpleName());
        }
        if (schemaStart < 0 || payloadStart < 0) {
            throw new RecordRejectedException("is not a JsonConverter envelope: it has no \""
                    + (schemaStart < 0 ? "schema" : "payload") + "\" member (is the topic written by JsonConverter "
                    + "with schemas.enable=true?)");
        }
        if (foreign) {
            throw new RecordRejectedException("is not a JsonConverter envelope: it has members other than "
                    + "one \"schema\" and one \"payload\"");
        }
        EnvelopeSchema schema = schema(bytes, schemaStart, schemaEnd);
        if (schemaStart < payloadStart) {
            remember(new Prefix(Arrays.copyOf(bytes, payloadStart), schema));
        }
        return payload(bytes, payloadStart, payloadEnd, schema, false);
    }

    private EnvelopeSchema schema(byte[] bytes, int start, int end) {
        SchemaText text = SchemaText.of(bytes, start, end);
        EnvelopeSchema schema = schemas.get(text);
        if (schema == null) {
            try {
                schema = EnvelopeSchema.read(JsonText.tree(bytes, start, end - start), writer);
            } catch (IOException e) {
                throw new RecordRejectedException("has a schema that cannot be read: " + e.getClass().getSimpleName());
            }
            if (schemas.size() >= SCHEMAS_KEPT) {
                schemas.clear();
            }
            schemas.put(text, schema);
        }
        return schema;
    }

    private void remember(Prefix prefix) {
        if (prefixes.size() >= PREFIXES_KEPT) {
            prefixes.removeLast();
        }
        prefixes.addFirst(prefix);
    }

    /**
     * The payload at bytes {@code [start, end)} as JSON text (null for a null payload). On the
     * fast path ({@code guessed}, the end only assumed), anything but exactly one value there
     * throws {@link ReadInFull}.
     */
    private String payload(byte[] bytes, int start, int end, EnvelopeSchema schema, boolean guessed) {
        RuntimeException irregular = null;
        for (boolean gather : new boolean[] {false, true}) {
            try (JsonParser in = JsonText.parser(bytes, start, end - start)) {
                in.nextToken();
                String text = root(in, schema, gather);
                if (in.nextToken() != null) {
                    if (guessed) {
                        throw ReadInFull.INSTANCE;
                    }
                    throw new RecordRejectedException("is not a JsonConverter envelope: its payload is not one value");
                }
                return text;
            } catch (StreamReadException e) {
                throw unreadable(e, guessed);
            } catch (UncheckedIOException e) {
                if (e.getCause() instanceof StreamReadException read) {
                    throw unreadable(read, guessed);
                }
                throw e;
            } catch (IOException e) {
                throw new RecordRejectedException("could not be read as JSON: " + e.getClass().getSimpleName());
            } catch (RuntimeException e) {
                if (!EnvelopePayload.isIrregular(e)) {
                    throw e;
                }
                irregular = e;
            }
        }
        throw new IllegalStateException("the second pass never asks for another", irregular);
    }

    private static RuntimeException unreadable(StreamReadException e, boolean guessed) {
        if (guessed) {
            return ReadInFull.INSTANCE;
        }
        return new RecordRejectedException("has a payload that is not valid JSON (or UTF-8) at "
                + JsonText.position(e.getLocation()));
    }

    // At the root the Struct path treats a String value (or plain bytes) as JSON text of its own,
    // as pgque.payload.format=json does for StringConverter's values.
    private String root(JsonParser in, EnvelopeSchema schema, boolean gather) throws IOException {
        JsonToken token = in.currentToken();
        if (token == JsonToken.VALUE_NULL) {
            if (schema.defaultJson() != null && !schema.defaultJson().equals("null")) {
                byte[] fallback = schema.defaultJson().getBytes(StandardCharsets.UTF_8);
                try (JsonParser defaults = JsonText.parser(fallback, 0, fallback.length)) {
                    defaults.nextToken();
                    return root(defaults, schema, gather);
                }
            }
            if (schema.optional || schema.kind == EnvelopeSchema.Kind.ANY) {
                return null;
            }
            throw new RecordRejectedException("has a null payload, but its schema is required and has no default");
        }
        if (token == JsonToken.VALUE_STRING && (schema.kind == EnvelopeSchema.Kind.STRING
                || schema.kind == EnvelopeSchema.Kind.ANY)) {
            return PayloadEncoder.jsonText(in.getText());
        }
        if (token == JsonToken.VALUE_STRING && schema.kind == EnvelopeSchema.Kind.BYTES) {
            return PayloadEncoder.jsonText(Utf8.decode(java.nio.ByteBuffer.wrap(in.getBinaryValue()), "payload"));
        }
        return output.write(out -> writer.write(in, schema, out, gather));
    }
}

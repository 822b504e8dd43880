/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;

/** Writing JSON text, and checking that text a record brings is one JSON value. */
final class JsonText {

    // Decimals keep their exact digits and never turn into exponent notation (1E+3).
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
            .build();

    // Schemas of envelopes are read as trees (once per distinct schema), with numbers as
    // JsonConverter reads them: every digit of a decimal default kept.
    private static final JsonMapper SCHEMA_READER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();

    private JsonText() {
    }

    /** A parser of {@code length} bytes of UTF-8 JSON from {@code offset}. */
    static JsonParser parser(byte[] bytes, int offset, int length) throws IOException {
        return MAPPER.createParser(bytes, offset, length);
    }

    /** One JSON value of {@code length} bytes from {@code offset}, as a tree. */
    static JsonNode tree(byte[] bytes, int offset, int length) throws IOException {
        return SCHEMA_READER.readTree(bytes, offset, length);
    }

    /** What {@link #write} writes: one JSON value. */
    @FunctionalInterface
    interface Body {
        void writeTo(JsonGenerator out) throws IOException;
    }

    /** The text {@code body} writes, with a generator of its own (for values written now and then). */
    static String write(Body body) {
        return new Output().write(body);
    }

    /**
     * A generator kept from one value to the next, for the payload of every record: making a
     * generator (its context, buffers and writer) for each one was half the cost of writing a
     * ~1 KB document. One per task thread; not thread-safe. A value whose writing fails leaves the
     * generator mid-value, so it is dropped and the next value gets a new one.
     */
    static final class Output {
        // Text larger than this is not kept for the next value's sake.
        private static final int KEPT_CHARS = 1 << 20;

        private final TextSink sink = new TextSink();
        private JsonGenerator out;

        /** The text {@code body} writes. */
        String write(Body body) {
            try {
                if (out == null) {
                    out = MAPPER.createGenerator(sink);
                    // One value per call: nothing between the values of successive calls.
                    out.setRootValueSeparator(null);
                }
                body.writeTo(out);
                out.flush();
                if (!out.getOutputContext().inRoot()) {
                    throw new IllegalStateException("a JSON body left a value unfinished");
                }
                return sink.take(KEPT_CHARS);
            } catch (StreamReadException e) {
                drop();
                // A body that reads as it writes (an envelope's payload): its caller reports where.
                throw new UncheckedIOException(e);
            } catch (JsonProcessingException e) {
                drop();
                throw new RecordRejectedException("cannot be written as JSON: " + e.getOriginalMessage());
            } catch (IOException e) {
                drop();
                // The sink does no I/O; only the generator's own checks end up here.
                throw new RecordRejectedException("cannot be written as JSON: " + e.getMessage());
            } catch (RuntimeException e) {
                drop();
                throw e;
            }
        }

        private void drop() {
            out = null;
            sink.take(0);
        }
    }

    /** A Writer into a StringBuilder that is emptied, not replaced, after each value. */
    private static final class TextSink extends Writer {
        private StringBuilder text = new StringBuilder(2048);

        String take(int keptChars) {
            String value = text.toString();
            if (text.capacity() > keptChars) {
                text = new StringBuilder(2048);
            } else {
                text.setLength(0);
            }
            return value;
        }

        @Override
        public void write(char[] chars, int offset, int length) {
            text.append(chars, offset, length);
        }

        @Override
        public void write(String chars, int offset, int length) {
            text.append(chars, offset, offset + length);
        }

        @Override
        public void write(int c) {
            text.append((char) c);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    /**
     * Rejects {@code text} unless it is exactly one JSON value (whitespace around it allowed).
     * The reason gives only the position of the error, never the text: payloads may be sensitive
     * and rejection reasons end up in logs and dead letter headers.
     */
    static void requireJson(String text, String what) {
        try (JsonParser parser = MAPPER.createParser(text)) {
            if (parser.nextToken() == null) {
                throw new RecordRejectedException(what + " is not JSON: it is empty");
            }
            // Walks (and so syntax-checks) the whole first value, nested content included.
            parser.skipChildren();
            if (parser.nextToken() != null) {
                throw new RecordRejectedException(what + " is not JSON: more than one value, the second at "
                        + position(parser.currentTokenLocation()));
            }
        } catch (JsonProcessingException e) {
            throw new RecordRejectedException(what + " is not JSON: syntax error at " + position(e.getLocation()));
        } catch (IOException e) {
            throw new RecordRejectedException(what + " could not be read as JSON: " + e.getClass().getSimpleName());
        }
    }

    /** Where an error is, never what is there (payloads may be sensitive). */
    static String position(JsonLocation location) {
        return location == null ? "an unknown position"
                : "line " + location.getLineNr() + ", column " + location.getColumnNr();
    }
}

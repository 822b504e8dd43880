/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A message made from the driver's bytes and one made from text are the same value. */
class MessageTest {

    private static final Instant AT = Instant.parse("2026-12-03T10:15:30.123456Z");
    private static final String TEXT = "{\"k\":\"Jürgen \u65e5\u672c\"}";

    private static Message fromText(long batchId, String payload) {
        return new Message(7, batchId, "t", payload, 1, AT, "key", null, "x3", null);
    }

    private static Message fromBytes(long batchId, byte[] payload) {
        return Message.ofUtf8(7, batchId, "t", payload, 1, AT, "key", null, "x3", null);
    }

    @Test
    void bytesAndTextGiveEqualMessages() {
        Message text = fromText(3, TEXT);
        Message bytes = fromBytes(3, TEXT.getBytes(StandardCharsets.UTF_8));
        assertEquals(text, bytes);
        assertEquals(bytes, text);
        assertEquals(text.hashCode(), bytes.hashCode());
        assertEquals(text.toString(), bytes.toString());
        assertEquals(TEXT, bytes.payload());
        assertArrayEquals(TEXT.getBytes(StandardCharsets.UTF_8), text.payloadBytes());
    }

    @Test
    void bytesAreHandedOutAsReceived() {
        byte[] received = TEXT.getBytes(StandardCharsets.UTF_8);
        assertSame(received, fromBytes(3, received).payloadBytes());
    }

    @Test
    void noPayloadIsNullInBothForms() {
        assertNull(fromBytes(3, null).payload());
        assertNull(fromBytes(3, null).payloadBytes());
        assertNull(fromText(3, null).payloadBytes());
        assertEquals(fromText(3, null), fromBytes(3, null));
    }

    @Test
    void inBatchChangesTheBatchOnly() {
        byte[] received = TEXT.getBytes(StandardCharsets.UTF_8);
        Message moved = fromBytes(3, received).inBatch(9);
        assertEquals(fromText(9, TEXT), moved);
        assertSame(received, moved.payloadBytes(), "the payload is shared, not copied");
        assertNotEquals(fromText(3, TEXT), moved);
    }

    @Test
    void differentPayloadsDiffer() {
        assertNotEquals(fromText(3, TEXT), fromBytes(3, "other".getBytes(StandardCharsets.UTF_8)));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import java.nio.ByteBuffer;
import java.util.Base64;

/** Connect represents BYTES as byte[] or ByteBuffer; this reads both without disturbing a buffer. */
final class Bytes {

    private Bytes() {
    }

    static boolean isBytes(Object value) {
        return value instanceof byte[] || value instanceof ByteBuffer;
    }

    static ByteBuffer buffer(Object value) {
        return value instanceof byte[] ? ByteBuffer.wrap((byte[]) value) : ((ByteBuffer) value).duplicate();
    }

    static String base64(Object value) {
        return Base64.getEncoder().encodeToString(array(value));
    }

    static byte[] array(Object value) {
        if (value instanceof byte[]) {
            return (byte[]) value;
        }
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] copy = new byte[buffer.remaining()];
        buffer.get(copy);
        return copy;
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Strict UTF-8 decoding: malformed input is a rejected record, never replacement characters. */
final class Utf8 {

    private Utf8() {
    }

    static String decode(ByteBuffer bytes, String what) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes.duplicate())
                    .toString();
        } catch (CharacterCodingException e) {
            throw new RecordRejectedException(what + " is not valid UTF-8 (" + e.getClass().getSimpleName() + ")");
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

/** PostgreSQL text cannot hold U+0000; a record carrying one is rejected, never truncated. */
final class Nul {

    private Nul() {
    }

    /** Rejects {@code text} (which may be null) when it contains NUL; {@code field} names the event field. */
    static void check(String field, String text) {
        if (text != null && text.indexOf('\u0000') >= 0) {
            throw new RecordRejectedException(field + " contains a NUL character (\\u0000) at index "
                    + text.indexOf('\u0000') + ", which PostgreSQL text cannot store");
        }
    }
}

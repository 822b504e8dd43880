/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.util.Locale;

/** Event payloads of ~100 B: a file-store event with its sequence number and send time. */
final class SourcePayload {
    static final int BYTES = of(0, 0, System.nanoTime()).length();

    private SourcePayload() {
    }

    static String of(int seq, int key, long sentNanos) {
        return String.format(Locale.ROOT,
                "{\"tenant\":\"tenant-%04d\",\"event\":\"FileCreated\",\"path\":\"/f/%07d.bin\",\"seq\":%d,"
                        + "\"sent\":%d}", key, seq, seq, sentNanos);
    }

    static long sentNanos(String payload) {
        int at = payload.indexOf("\"sent\":") + 7;
        return Long.parseLong(payload.substring(at, payload.indexOf('}', at)));
    }

    static String key(int key) {
        return "tenant-" + key;
    }
}

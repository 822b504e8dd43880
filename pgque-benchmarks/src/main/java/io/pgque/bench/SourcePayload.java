/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.util.Locale;

/**
 * Event payloads of ~100 B: a file-store event with its sequence number and send time; with a
 * block of tags before them, of any size.
 */
final class SourcePayload {
    static final int BYTES = of(0, 0, System.nanoTime()).length();

    private SourcePayload() {
    }

    static String of(int seq, int key, long sentNanos) {
        return String.format(Locale.ROOT,
                "{\"tenant\":\"tenant-%04d\",\"event\":\"FileCreated\",\"path\":\"/f/%07d.bin\",\"seq\":%d,"
                        + "\"sent\":%d}", key, seq, seq, sentNanos);
    }

    /** As {@link #of(int, int, long)}, about {@code bytes} long: a block of tags makes up the rest. */
    static String of(int seq, int key, long sentNanos, int bytes) {
        StringBuilder tags = new StringBuilder();
        for (int t = 0; tags.length() < bytes - BYTES - 10; t++) {
            tags.append(t == 0 ? "" : ",").append("\"tag-").append(key % 97).append('-').append(t).append('"');
        }
        return String.format(Locale.ROOT,
                "{\"tenant\":\"tenant-%04d\",\"event\":\"FileCreated\",\"tags\":[%s],\"path\":\"/f/%07d.bin\","
                        + "\"seq\":%d,\"sent\":%d}", key, tags, seq, seq, sentNanos);
    }

    static long sentNanos(String payload) {
        int at = payload.indexOf("\"sent\":") + 7;
        return Long.parseLong(payload.substring(at, payload.indexOf('}', at)));
    }

    static String key(int key) {
        return "tenant-" + key;
    }
}

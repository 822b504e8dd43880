/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.util.Locale;

/**
 * The ~1 KB JSON documents the durable-write benchmarks send: a file event of the demo domain
 * with a block of tags. Made from their index on demand, so no run holds 200,000 of them in
 * memory; the same index always gives the same text.
 */
final class Documents {

    /** Partition keys (tenants) the documents are spread over. */
    static final int KEYS = 1_000;

    /** The schema part of a {@code JsonConverter} envelope for these documents (schemas.enable=true). */
    private static final String SCHEMA = "{\"type\":\"struct\",\"name\":\"FileEvent\",\"optional\":false,\"fields\":["
            + "{\"field\":\"tenant\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"event\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"path\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"size\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"tags\",\"type\":\"array\",\"items\":{\"type\":\"string\",\"optional\":false},\"optional\":false}]}";

    private Documents() {
    }

    static String key(int i) {
        return String.format(Locale.ROOT, "tenant-%04d", i % KEYS);
    }

    /**
     * Document {@code i}. Its members are in the order of {@link #SCHEMA}'s fields, so the sink's
     * JSON of the Struct that {@code JsonConverter} reads from {@link #envelope} is this text.
     */
    static String json(int i) {
        StringBuilder tags = new StringBuilder();
        for (int t = 0; tags.length() < 920; t++) {
            if (t > 0) {
                tags.append(',');
            }
            tags.append("\"tag-").append(i % 97).append('-').append(t).append('"');
        }
        return String.format(Locale.ROOT, "{\"tenant\":\"%s\",\"event\":\"FileCreated\",\"path\":\"/files/%06d.bin\","
                + "\"size\":%d,\"tags\":[%s]}", key(i), i, 1000 + i * 37 % 100000, tags);
    }

    /** Document {@code i} as {@code JsonConverter} writes a Struct with {@code schemas.enable=true}. */
    static String envelope(int i) {
        return "{\"schema\":" + SCHEMA + ",\"payload\":" + json(i) + "}";
    }

    static int averageBytes(int count) {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += json(i).length();
        }
        return (int) (total / count);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Demo lifecycle events of a multi-tenant file store, as JSON text. */
final class Payloads {

    private static final String[] TYPES = {"FileCreated", "FileOverwritten", "FileDeleted"};

    private Payloads() {
    }

    static List<String> json(int count) {
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(String.format(Locale.ROOT,
                    "{\"tenant\":\"tenant-%04d\",\"event\":\"%s\",\"path\":\"/files/%06d.bin\",\"size\":%d}",
                    i % 200, TYPES[i % TYPES.length], i, 1000 + i * 37 % 100000));
        }
        return out;
    }

    static int averageBytes(List<String> payloads) {
        return (int) payloads.stream().mapToInt(String::length).average().orElse(0);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.validate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Error messages of the live checks, by the configuration key they concern. */
final class Findings {

    private final Map<String, List<String>> errors = new LinkedHashMap<>();

    void add(String key, String message) {
        errors.computeIfAbsent(key, k -> new ArrayList<>()).add(message);
    }

    Map<String, List<String>> errors() {
        return errors;
    }
}

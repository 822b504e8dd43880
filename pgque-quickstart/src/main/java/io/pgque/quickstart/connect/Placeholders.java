/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fills the quickstart's {@code ${UPPER_CASE}} placeholders in connector config values.
 *
 * <p>Only upper-case names are the quickstart's: the connectors have templates of their own in
 * lower case ({@code ${topic}}, {@code ${header:NAME}}, {@code ${type}}), which must reach them
 * untouched. An upper-case name the quickstart does not know is an error rather than left in,
 * so a typo in a config file cannot become a literal connection URL.
 */
public final class Placeholders {

    private static final Pattern UPPER = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)}");

    private final Map<String, String> values;

    public Placeholders(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /** {@code text} with every quickstart placeholder replaced by its value. */
    public String fill(String text) {
        Matcher m = UPPER.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = values.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException("unknown placeholder ${" + m.group(1)
                        + "}; the quickstart fills " + new TreeSet<>(values.keySet()));
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }
}

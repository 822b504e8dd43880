/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.template;

import org.apache.kafka.common.config.ConfigDef;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A text with {@code ${...}} placeholders, parsed once when the configuration is read and
 * rendered once per record. Rendering only concatenates the pre-split pieces with the values
 * the caller supplies; no parsing happens on the record path.
 */
public final class Template {

    private final String source;
    // literals[i] precedes placeholders[i]; the last literal follows the last placeholder.
    private final String[] literals;
    private final Placeholder[] placeholders;
    private final int literalLength;

    Template(String source, String[] literals, Placeholder[] placeholders) {
        this.source = source;
        this.literals = literals;
        this.placeholders = placeholders;
        int length = 0;
        for (String literal : literals) {
            length += literal.length();
        }
        this.literalLength = length;
    }

    /**
     * Parses {@code text}, allowing only the placeholder kinds in {@code allowed}.
     *
     * @param key the configuration key the text came from, named in any error
     * @throws org.apache.kafka.common.config.ConfigException on an unknown or disallowed
     *         placeholder, an unclosed "${", or an empty header name
     */
    public static Template parse(String key, String text, Set<PlaceholderKind> allowed) {
        return TemplateParser.parse(key, text, allowed);
    }

    /** A {@code ConfigDef} validator that accepts exactly what {@link #parse} accepts. */
    public static ConfigDef.Validator validator(Set<PlaceholderKind> allowed) {
        Set<PlaceholderKind> kinds = allowed.isEmpty() ? EnumSet.noneOf(PlaceholderKind.class) : EnumSet.copyOf(allowed);
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                parse(name, value == null ? null : value.toString(), kinds);
            }

            @Override
            public String toString() {
                return "text with placeholders " + PlaceholderKind.describe(kinds);
            }
        };
    }

    /** The text with every placeholder replaced by its value (null values render as nothing). */
    public String render(PlaceholderValues values) {
        if (placeholders.length == 0) {
            return literals[0];
        }
        StringBuilder out = new StringBuilder(literalLength + 16 * placeholders.length);
        for (int i = 0; i < placeholders.length; i++) {
            out.append(literals[i]);
            String value = values.valueOf(placeholders[i]);
            if (value != null) {
                out.append(value);
            }
        }
        return out.append(literals[placeholders.length]).toString();
    }

    /**
     * The first placeholder whose value is null or empty, or null when every one has a value.
     * For uses where a silently empty part would change the meaning, such as a dedup key that
     * would then be shared by every record lacking that part.
     */
    public Placeholder firstMissing(PlaceholderValues values) {
        for (Placeholder placeholder : placeholders) {
            String value = values.valueOf(placeholder);
            if (value == null || value.isEmpty()) {
                return placeholder;
            }
        }
        return null;
    }

    /** True when the template has no placeholder, so every rendering gives {@link #source()}. */
    public boolean isConstant() {
        return placeholders.length == 0;
    }

    /** True for the empty template, which callers use to mean "off" or "no value". */
    public boolean isEmpty() {
        return source.isEmpty();
    }

    /** True when at least one placeholder is of {@code kind}. */
    public boolean uses(PlaceholderKind kind) {
        for (Placeholder placeholder : placeholders) {
            if (placeholder.kind() == kind) {
                return true;
            }
        }
        return false;
    }

    public List<Placeholder> placeholders() {
        return Collections.unmodifiableList(Arrays.asList(placeholders));
    }

    /** The text as configured. */
    public String source() {
        return source;
    }

    @Override
    public String toString() {
        return source;
    }
}

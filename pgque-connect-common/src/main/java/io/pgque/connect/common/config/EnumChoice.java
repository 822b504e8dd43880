/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * One enum-like string option: the labels users write, matched without regard to case, with the
 * validator, recommender and documentation sentence that go with it. Both connectors declare
 * their choice-valued keys through this class so every such key reads and fails the same way.
 *
 * @param <E> the enum that the option's labels stand for
 */
public final class EnumChoice<E extends Enum<E>> {

    private final Class<E> type;
    private final Map<E, String> labels;
    private final List<String> labelList;

    private EnumChoice(Class<E> type, Function<E, String> label) {
        this.type = type;
        this.labels = new EnumMap<>(type);
        List<String> list = new ArrayList<>();
        for (E constant : type.getEnumConstants()) {
            String text = Objects.requireNonNull(label.apply(constant), "label");
            labels.put(constant, text);
            list.add(text);
        }
        this.labelList = Collections.unmodifiableList(list);
    }

    /** Labels are the constants' names in lower case: {@code AT_LEAST_ONCE} is "at_least_once". */
    public static <E extends Enum<E>> EnumChoice<E> of(Class<E> type) {
        return new EnumChoice<>(type, constant -> constant.name().toLowerCase(Locale.ROOT));
    }

    /** Labels chosen per constant, for values that are not identifiers (e.g. "verify-full"). */
    public static <E extends Enum<E>> EnumChoice<E> of(Class<E> type, Function<E, String> label) {
        return new EnumChoice<>(type, label);
    }

    /** The label users write for {@code constant}; also what a default value should be. */
    public String label(E constant) {
        return labels.get(constant);
    }

    /** Every allowed label, in declaration order. */
    public List<String> labels() {
        return labelList;
    }

    /**
     * The constant for {@code text}, ignoring case and surrounding blanks.
     *
     * @throws ConfigException naming {@code key} and the allowed values when nothing matches
     */
    public E parse(String key, String text) {
        if (text != null) {
            String wanted = text.trim();
            for (Map.Entry<E, String> entry : labels.entrySet()) {
                if (entry.getValue().equalsIgnoreCase(wanted)) {
                    return entry.getKey();
                }
            }
        }
        throw new ConfigException(key, text, "must be one of " + allowedText());
    }

    /** Rejects anything {@link #parse} would reject, with the same message. */
    public ConfigDef.Validator validator() {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                parse(name, value == null ? null : value.toString());
            }

            @Override
            public String toString() {
                // ConfigDef prints this as the "Valid Values" column of the generated reference.
                return "[" + String.join(", ", labelList) + "] (case-insensitive)";
            }
        };
    }

    /** Offers the labels to UIs such as the Connect REST validate endpoint. */
    public ConfigDef.Recommender recommender() {
        return new ConfigDef.Recommender() {
            @Override
            public List<Object> validValues(String name, Map<String, Object> parsedConfig) {
                return new ArrayList<>(labelList);
            }

            @Override
            public boolean visible(String name, Map<String, Object> parsedConfig) {
                return true;
            }
        };
    }

    /** {@code doc} followed by a sentence that lists the allowed values. */
    public String document(String doc) {
        return doc + " Allowed values: " + allowedText() + ".";
    }

    private String allowedText() {
        return String.join(", ", labelList) + " (case-insensitive)";
    }

    @Override
    public String toString() {
        return type.getSimpleName() + labelList;
    }
}

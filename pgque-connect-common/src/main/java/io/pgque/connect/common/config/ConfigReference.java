/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

import org.apache.kafka.common.config.ConfigDef;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Renders a connector's {@link ConfigDef} as its Markdown configuration reference: one table per
 * group, keys in their order within the group. Both connectors' references come from here, so
 * they read alike and neither can drift from its code (each connector has a test that fails
 * when its committed file differs from the rendering).
 */
public final class ConfigReference {

    private ConfigReference() {
    }

    /**
     * @param title the page's heading
     * @param intro a paragraph under it: where it comes from, where the guide is
     */
    public static String markdown(String title, String intro, ConfigDef def) {
        StringBuilder md = new StringBuilder("# ").append(title).append("\n\n").append(intro).append("\n");
        for (String group : def.groups()) {
            List<ConfigDef.ConfigKey> keys = def.configKeys().values().stream()
                    .filter(key -> group.equals(key.group))
                    .sorted(Comparator.comparingInt(key -> key.orderInGroup))
                    .toList();
            md.append("\n## ").append(group).append("\n\n")
                    .append("| key | type | default | allowed | importance | what it does |\n")
                    .append("|---|---|---|---|---|---|\n");
            for (ConfigDef.ConfigKey key : keys) {
                md.append("| `").append(key.name).append("` | ")
                        .append(key.type.name().toLowerCase(Locale.ROOT)).append(" | ")
                        .append(defaultOf(key)).append(" | ")
                        .append(key.validator == null ? "" : cell(key.validator.toString())).append(" | ")
                        .append(key.importance.name().toLowerCase(Locale.ROOT)).append(" | ")
                        .append(cell(key.documentation)).append(" |\n");
            }
        }
        return md.toString();
    }

    private static String defaultOf(ConfigDef.ConfigKey key) {
        if (!key.hasDefault()) {
            return "required";
        }
        if (key.defaultValue == null) {
            return "none";
        }
        String text = ConfigDef.convertToString(key.defaultValue, key.type);
        return text.isEmpty() ? "empty" : "`" + cell(text) + "`";
    }

    private static String cell(String text) {
        return text == null ? "" : text.replace("|", "\\|").replace("\n", " ");
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.template;

import org.apache.kafka.common.config.ConfigException;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Splits template text into literal pieces and placeholders. There is no escape syntax: every
 * "${" opens a placeholder, so a template either means exactly what it shows or is rejected.
 */
final class TemplateParser {

    private static final String OPEN = "${";

    private TemplateParser() {
    }

    static Template parse(String key, String text, Set<PlaceholderKind> allowed) {
        if (text == null) {
            throw new ConfigException(key, null, "must be set (a template; use an empty string for none)");
        }
        List<String> literals = new ArrayList<>();
        List<Placeholder> placeholders = new ArrayList<>();
        int position = 0;
        while (true) {
            int open = text.indexOf(OPEN, position);
            if (open < 0) {
                literals.add(text.substring(position));
                break;
            }
            int close = text.indexOf('}', open + OPEN.length());
            if (close < 0) {
                throw new ConfigException(key, text, "unclosed '${' at position " + open
                        + "; placeholders are written ${name}. Allowed here: " + allowedText(allowed));
            }
            literals.add(text.substring(position, open));
            placeholders.add(placeholder(key, text, text.substring(open + OPEN.length(), close), allowed));
            position = close + 1;
        }
        return new Template(text, literals.toArray(new String[0]), placeholders.toArray(new Placeholder[0]));
    }

    private static Placeholder placeholder(String key, String text, String body, Set<PlaceholderKind> allowed) {
        for (PlaceholderKind kind : allowed) {
            if (kind == PlaceholderKind.HEADER) {
                if (body.startsWith(kind.token())) {
                    String name = body.substring(kind.token().length());
                    if (name.isEmpty()) {
                        throw new ConfigException(key, text, "${header:} needs a header name, as in ${header:NAME}");
                    }
                    return new Placeholder(kind, name);
                }
            } else if (body.equals(kind.token())) {
                return new Placeholder(kind, null);
            }
        }
        String reason = isKnown(body) ? "placeholder ${" + body + "} is not allowed here" : "unknown placeholder ${" + body + "}";
        throw new ConfigException(key, text, reason + ". Allowed here: " + allowedText(allowed));
    }

    private static boolean isKnown(String body) {
        for (PlaceholderKind kind : PlaceholderKind.values()) {
            if (kind == PlaceholderKind.HEADER ? body.startsWith(kind.token()) : body.equals(kind.token())) {
                return true;
            }
        }
        return false;
    }

    private static String allowedText(Set<PlaceholderKind> allowed) {
        return allowed.isEmpty() ? "none (literal text only)" : PlaceholderKind.describe(allowed);
    }
}

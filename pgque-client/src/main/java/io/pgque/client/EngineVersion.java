/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading and comparing engine versions such as {@code 1.2.0} or {@code 1.3.0-devel}. */
final class EngineVersion {

    private static final Pattern SCRIPT_MARKER =
            Pattern.compile("^-- pgque-engine-version: (\\S+)\\s*$", Pattern.MULTILINE);
    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)(-\\S+)?");

    private EngineVersion() {
    }

    /** The version an install script declares in its {@code -- pgque-engine-version: X.Y.Z} line. */
    static Optional<String> fromScript(String script) {
        Matcher m = SCRIPT_MARKER.matcher(script);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /**
     * Orders versions by their numbers; at equal numbers a pre-release ({@code -suffix}) comes
     * before the release. Versions that do not parse compare as equal only when identical.
     *
     * @throws IllegalArgumentException if either is not of the form X.Y.Z[-suffix]
     */
    static int compare(String a, String b) {
        Matcher ma = parse(a);
        Matcher mb = parse(b);
        for (int g = 1; g <= 3; g++) {
            int c = Long.compare(Long.parseLong(ma.group(g)), Long.parseLong(mb.group(g)));
            if (c != 0) {
                return c;
            }
        }
        String sa = ma.group(4);
        String sb = mb.group(4);
        if (sa == null || sb == null) {
            return sa == null ? (sb == null ? 0 : 1) : -1;
        }
        return sa.compareTo(sb);
    }

    private static Matcher parse(String v) {
        Matcher m = VERSION.matcher(v == null ? "" : v.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not an engine version (X.Y.Z[-suffix]): " + v);
        }
        return m;
    }
}

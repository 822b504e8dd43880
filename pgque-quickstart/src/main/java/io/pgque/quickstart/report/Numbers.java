/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.report;

import java.time.Duration;
import java.util.Locale;

/** How the quickstart writes numbers for people: grouped digits, milliseconds with one decimal. */
final class Numbers {

    private Numbers() {
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    static String millis(long micros) {
        return micros < 0 ? "-" : String.format(Locale.ROOT, "%.1f ms", micros / 1000.0);
    }

    static String seconds(Duration d) {
        return d == null ? "-" : String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.0f%%", fraction * 100);
    }

    static String rate(double perSecond) {
        return String.format(Locale.ROOT, "%,.0f/s", perSecond);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What an engine can do, by the release that brought each function. */
class EngineCapabilitiesTest {

    private static EngineCapabilities of(String version) {
        return EngineCapabilities.of(Optional.ofNullable(version));
    }

    private static String can(EngineCapabilities c) {
        return (c.catchUpWindow() ? "W" : "-") + (c.readAhead() ? "A" : "-") + (c.readAheadQuery() ? "Q" : "-")
                + (c.readAheadSlotsQuery() ? "S" : "-") + (c.readAheadAfterQuery() ? "N" : "-")
                + (c.readAheadFirst() ? "F" : "-") + (c.ackReceive() ? "R" : "-");
    }

    @Test
    void eachReleaseAddsItsFunctions() {
        assertEquals("-------", can(of(null)), "no version(): older than all of them");
        assertEquals("-------", can(of("0.1.9")));
        assertEquals("W------", can(of("0.2.0")));
        assertEquals("WA-----", can(of("0.3.0")));
        assertEquals("WAQ----", can(of("0.3.2")));
        assertEquals("WAQS---", can(of("0.3.3")));
        assertEquals("WAQSN--", can(of("0.3.4")));
        assertEquals("WAQSN--", can(of("0.4.1")));
        assertEquals("WAQSNF-", can(of("0.4.2")));
        assertEquals("WAQSNFR", can(of("0.5.0")));
    }

    @Test
    void aPreReleaseOfAVersionComesBeforeIt() {
        assertEquals("WAQS---", can(of("0.3.4-devel")));
        assertEquals("WAQSN--", can(of("0.4.2-devel")));
        assertEquals("WAQSNF-", can(of("0.5.0-devel")));
    }

    @Test
    void aVersionThatDoesNotParseIsTakenAsTheNewest() {
        assertEquals("WAQSNFR", can(of("nightly")));
    }
}

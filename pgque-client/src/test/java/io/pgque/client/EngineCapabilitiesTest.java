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

    /** W: catch-up window, then what is read ahead (N the batch after an open one, F a first batch), R: ack and receive. */
    private static String can(EngineCapabilities c) {
        AheadDialect a = c.ahead();
        return (c.catchUpWindow() ? "W" : "-") + (a.readsPage(1L, null) && a.readsPage(1L, 1L) ? "N" : "-")
                + (a.readsPage(null, null) ? "F" : "-") + (c.ackReceive() ? "R" : "-");
    }

    @Test
    void eachReleaseAddsItsFunctions() {
        assertEquals("----", can(of(null)), "no version(): older than all of them");
        assertEquals("----", can(of("0.1.9")));
        assertEquals("W---", can(of("0.2.0")));
        assertEquals("W---", can(of("0.3.3")), "before the one query entry point: nothing read ahead");
        assertEquals("WN--", can(of("0.3.4")));
        assertEquals("WN--", can(of("0.4.1")));
        assertEquals("WNF-", can(of("0.4.2")));
        assertEquals("WNFR", can(of("0.5.0")));
    }

    @Test
    void aPreReleaseOfAVersionComesBeforeIt() {
        assertEquals("W---", can(of("0.3.4-devel")));
        assertEquals("WN--", can(of("0.4.2-devel")));
        assertEquals("WNF-", can(of("0.5.0-devel")));
    }

    @Test
    void eachDialectReadsTheNextBatchOfAnOpenOneAndTheLaterOnesReadMore() {
        assertEquals(AheadDialect.NONE, of("0.3.3").ahead());
        assertEquals(AheadDialect.AFTER_QUERY, of("0.4.1").ahead());
        assertEquals(AheadDialect.FIRST_QUERY, of("0.5.0").ahead());
        for (AheadDialect dialect : AheadDialect.values()) {
            assertEquals(dialect != AheadDialect.NONE, dialect.readsPage(7L, null), dialect.name());
        }
    }

    @Test
    void aVersionThatDoesNotParseIsTakenAsTheNewest() {
        assertEquals("WNFR", can(of("nightly")));
    }
}

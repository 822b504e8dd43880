/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.quickstart.QuickstartOptions.UsageException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class QuickstartOptionsTest {

    @Test
    void noFlagsGiveTheDocumentedDefaults() {
        QuickstartOptions o = QuickstartOptions.parse().orElseThrow();
        assertFalse(o.once());
        assertEquals(20_000, o.events());
        assertEquals(200, o.tenants());
        assertEquals(OptionalInt.empty(), o.slots(), "the source file decides");
        assertEquals(8083, o.restPort());
        assertEquals(Path.of("target", "quickstart-data"), o.dataDir());
        assertEquals(Optional.empty(), o.jdbcUrl());
        assertEquals(Optional.empty(), o.bootstrapServers());
        assertEquals("postgres", o.dbUser());
    }

    @Test
    void everyFlagIsRead() {
        QuickstartOptions o = QuickstartOptions.parse("--once", "--events=2_000", "--tenants=10", "--slots=8",
                "--rate=0", "--rest-port=0", "--data-dir=/tmp/x", "--jdbc-url=jdbc:postgresql://db/app",
                "--db-user=app", "--db-password=s3cret", "--bootstrap-servers=k1:9092,k2:9092",
                "--config-dir=cfg").orElseThrow();
        assertTrue(o.once());
        assertEquals(2000, o.events());
        assertEquals(10, o.tenants());
        assertEquals(OptionalInt.of(8), o.slots());
        assertEquals(0, o.rate());
        assertEquals(0, o.restPort());
        assertEquals(Path.of("/tmp/x"), o.dataDir());
        assertEquals(Optional.of("jdbc:postgresql://db/app"), o.jdbcUrl());
        assertEquals("app", o.dbUser());
        assertEquals("s3cret", o.dbPassword());
        assertEquals(Optional.of("k1:9092,k2:9092"), o.bootstrapServers());
        assertEquals(Optional.of(Path.of("cfg")), o.configDir());
    }

    @Test
    void toStringShowsTheOptionsButNotThePassword() {
        QuickstartOptions o = QuickstartOptions.parse("--jdbc-url=jdbc:postgresql://db/app", "--db-user=app",
                "--db-password=s3cret").orElseThrow();
        assertFalse(o.toString().contains("s3cret"), o.toString());
        assertTrue(o.toString().contains("dbUser=app") && o.toString().contains("dbPassword=(hidden)"), o.toString());
    }

    @Test
    void helpAsksForUsageInsteadOfARun() {
        assertTrue(QuickstartOptions.parse("--events=5", "--help").isEmpty());
    }

    @Test
    void mistakesAreNamed() {
        assertMessage("unknown flag --evnts", "--evnts=5");
        assertMessage("--events must be a whole number", "--events=many");
        assertMessage("--slots must be between 1 and 256", "--slots=300");
        assertMessage("--events needs a value", "--events");
        assertMessage("--once takes no value", "--once=yes");
        assertMessage("--jdbc-url must look like jdbc:postgresql://host:port/database", "--jdbc-url=postgres://x");
        assertMessage("--jdbc-url must look like", "--jdbc-url=jdbc:postgresql:app");
        assertMessage("unexpected argument 'once'", "once");
    }

    private static void assertMessage(String expected, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> QuickstartOptions.parse(args));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}

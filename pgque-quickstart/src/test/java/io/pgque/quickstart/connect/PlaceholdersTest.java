/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PlaceholdersTest {

    private final Placeholders placeholders = new Placeholders(Map.of(
            "PGQUE_JDBC_URL", "jdbc:postgresql://localhost:5432/postgres",
            "PGQUE_DB_PASSWORD", "a$b\\c"));

    @Test
    void fillsTheQuickstartsOwnNames() {
        assertEquals("jdbc:postgresql://localhost:5432/postgres", placeholders.fill("${PGQUE_JDBC_URL}"));
        assertEquals("url=jdbc:postgresql://localhost:5432/postgres;", placeholders.fill("url=${PGQUE_JDBC_URL};"));
    }

    @Test
    void valuesAreTakenLiterallyEvenWithRegexSpecialCharacters() {
        assertEquals("a$b\\c", placeholders.fill("${PGQUE_DB_PASSWORD}"));
    }

    @Test
    void leavesTheConnectorsLowerCaseTemplatesAlone() {
        assertEquals("${header:event_type}", placeholders.fill("${header:event_type}"));
        assertEquals("${topic}/${partition}/${offset}", placeholders.fill("${topic}/${partition}/${offset}"));
        assertEquals("events.${type}", placeholders.fill("events.${type}"));
    }

    @Test
    void anUnknownUpperCaseNameIsAnErrorNotALiteral() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> placeholders.fill("${PGQUE_JDBC_ULR}"));
        assertTrue(e.getMessage().contains("${PGQUE_JDBC_ULR}"), e.getMessage());
        assertTrue(e.getMessage().contains("PGQUE_JDBC_URL"), "lists the known names: " + e.getMessage());
    }

    @Test
    void textWithoutPlaceholdersIsUnchanged() {
        assertEquals("io.pgque.connect.sink.PgQueSinkConnector", placeholders.fill("io.pgque.connect.sink.PgQueSinkConnector"));
        assertEquals("$ {X} and ${", placeholders.fill("$ {X} and ${"));
    }
}

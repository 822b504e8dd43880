/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SqlErrorsTest {

    @Test
    void everyDocumentedStateMapsToItsException() {
        Map<String, Class<? extends PgQueException>> expected = Map.ofEntries(
                Map.entry("PQ001", QueueNotFoundException.class),
                Map.entry("PQ002", ConsumerNotFoundException.class),
                Map.entry("PQ003", BatchNotFoundException.class),
                Map.entry("PQ004", SlotFencedException.class),
                Map.entry("PQ005", SlotNotLeasedException.class),
                Map.entry("PQ006", PartitionMismatchException.class),
                Map.entry("PQ007", InstallRefusedException.class),
                Map.entry("PQ008", MessageNotFoundException.class),
                Map.entry("PQ009", WrongApiException.class),
                Map.entry("PQ010", SinkOffsetsFencedException.class),
                Map.entry("PQ011", SlotSetChangedException.class),
                Map.entry("42501", PermissionDeniedException.class),
                Map.entry("22023", InvalidArgumentException.class));
        expected.forEach((state, type) -> {
            SQLException cause = new SQLException("ERROR: something about " + state, state);
            PgQueException e = SqlErrors.map("do the thing", cause);
            assertInstanceOf(type, e, state);
            assertEquals(state, e.sqlState());
            assertSame(cause, e.getCause());
            assertEquals("do the thing failed: ERROR: something about " + state, e.getMessage());
        });
    }

    @Test
    void otherStatesGiveTheBaseException() {
        PgQueException e = SqlErrors.map("x", new SQLException("boom", "23505"));
        assertEquals(PgQueException.class, e.getClass());
        assertEquals("23505", e.sqlState());
        PgQueException noState = SqlErrors.map("x", new SQLException("no state"));
        assertEquals(PgQueException.class, noState.getClass());
        assertFalse(noState.isTransient());
    }

    @Test
    void transientStates() {
        for (String state : new String[] {"08000", "08003", "08006", "08001", "40001", "40P01", "57P01", "57P02", "57P03",
                "57014", "55P03"}) { // statement_timeout and lock_timeout: the connectors' own bounds
            assertTrue(SqlErrors.map("x", new SQLException("m", state)).isTransient(), state);
        }
        for (String state : new String[] {"PQ001", "PQ004", "42501", "22023", "23505", "40000"}) {
            assertFalse(SqlErrors.map("x", new SQLException("m", state)).isTransient(), state);
        }
        assertFalse(PgQueException.isTransientState(null));
    }

    @Test
    void aPoolTimeoutWithoutStateIsTransient() {
        assertTrue(SqlErrors.map("x", new java.sql.SQLTransientConnectionException("pool timed out")).isTransient());
        assertTrue(SqlErrors.map("x", new java.sql.SQLRecoverableException("gone")).isTransient());
    }
}

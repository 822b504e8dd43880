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
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

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

    /** An error as the server sends it: SQLSTATE, message and, when given, the CONSTRAINT field. */
    private static PSQLException serverError(String state, String message, String constraint) {
        String fields = "SERROR\0C" + state + "\0M" + message + "\0" + (constraint == null ? "" : "n" + constraint + "\0");
        return new PSQLException(new ServerErrorMessage(fields));
    }

    @Test
    void anErrorRaisedAsPgQueDoesIsReadByTheCodeItCarries() {
        PgQueException fenced = SqlErrors.map("ack", serverError("P0001",
                "lease on slot 0 of consumer c on queue q is held by worker w2, not w1; fenced", "pgque:PQ004"));
        assertInstanceOf(SlotFencedException.class, fenced);
        assertEquals("PQ004", fenced.sqlState());
        assertEquals("55000", SqlErrors.code(serverError("P0001", "Insert into queue disallowed", "pgque:55000")));
        assertEquals("PQ005", PgQueException.sqlStateOf(new RuntimeException(
                serverError("P0001", "slot 0 of consumer c on queue q is not leased", "pgque:PQ005"))));
        // Without the engine's field, P0001 is a RAISE of someone else's (a user's trigger, say).
        assertEquals("P0001", SqlErrors.code(serverError("P0001", "from a trigger", null)));
        assertEquals("P0001", SqlErrors.code(serverError("P0001", "from a trigger", "some_check")));
        assertEquals("P0001", SqlErrors.code(serverError("P0001", "odd", "pgque:")));
        // Another SQLSTATE is the code itself, whatever its constraint (a real one, of a real table).
        assertEquals("23505", SqlErrors.code(serverError("23505", "duplicate key", "pgque:PQ001")));
        assertEquals("PQ011", SqlErrors.map("receive", serverError("PQ011", "resized", null)).sqlState());
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

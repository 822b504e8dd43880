/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one classifier both connectors use: {@link PgQueException#isTransient(Throwable)} and {@link PgQueException#sqlStateOf}. */
class TransientFailuresTest {

    @Test
    void aLostConnectionAServerRestartAndAPoolTimeoutAreTransientWhereverTheyAreInTheChain() {
        assertTrue(PgQueException.isTransient(new RuntimeException(new SQLException("gone", "08006"))));
        assertTrue(PgQueException.isTransient(new SQLException("shutting down", "57P01")));
        assertTrue(PgQueException.isTransient(new IllegalStateException(new SQLTransientConnectionException("pool timeout"))));
        assertTrue(PgQueException.isTransient(new PgQueException("deadlock", "40P01", null)));
    }

    @Test
    void contentPermissionAndEngineErrorsAreNot() {
        assertFalse(PgQueException.isTransient(new PgQueException("dup", "23505", new SQLException("dup", "23505"))));
        assertFalse(PgQueException.isTransient(new SQLException("denied", "42501")));
        assertFalse(PgQueException.isTransient(new QueueNotFoundException("no queue", "PQ001", null)));
        assertFalse(PgQueException.isTransient(new IllegalArgumentException("no SQL at all")));
        assertFalse(PgQueException.isTransient(null));
    }

    @Test
    void theSqlStateIsTheFirstAlongTheChain() {
        assertEquals("PQ004", PgQueException.sqlStateOf(new RuntimeException(new PgQueException("fenced", "PQ004",
                new SQLException("fenced", "PQ004")))));
        assertEquals("22023", PgQueException.sqlStateOf(new RuntimeException(new SQLException("bad", "22023"))));
        assertNull(PgQueException.sqlStateOf(new RuntimeException("none")));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import io.pgque.client.PgQueException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FailureKindTest {

    private static PgQueException database(String state) {
        return new PgQueException("send failed", state, new SQLException("ERROR", state));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "08006, TRANSIENT",     // connection lost mid-statement
        "08001, TRANSIENT",
        "40001, TRANSIENT",     // serialization failure
        "40P01, TRANSIENT",     // deadlock
        "57P01, TRANSIENT",     // admin shutdown
        "57P03, TRANSIENT",     // starting up
        "54000, RECORD",        // e.g. a dedup key too long for its index
        "22021, RECORD",        // invalid byte sequence
        "23514, RECORD",        // a CHECK on the event table
        "P0001, RECORD",        // RAISE in a user's trigger
        "22023, FATAL",         // the engine's "malformed call": equal for every record
        "PQ001, FATAL",         // queue not found
        "42501, FATAL",         // permission denied
        "42883, FATAL",         // function missing: engine not installed
        "55000, FATAL",         // inserts disabled on the queue
    })
    void sqlStatesDecide(String state, FailureKind expected) {
        assertEquals(expected, FailureKind.of(database(state)));
    }

    @Test
    void aPoolThatCannotHandOutAConnectionIsNoConnection() {
        SQLTransientConnectionException timeout = new SQLTransientConnectionException("pool - Connection is not available", null,
                new SQLException("Connection refused", "08001"));
        assertEquals(FailureKind.NO_CONNECTION, FailureKind.of(new WriteFailedException("getting a database connection", timeout)));
    }

    @Test
    void errorsWithoutSqlStateAreFatal() {
        assertEquals(FailureKind.FATAL, FailureKind.of(new IllegalStateException("bug")));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.reader;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which tasks share scans, and how long their connector's sharing lives. */
class ConnectorScansTest {

    private static final String URL = "jdbc:postgresql://db/app";

    @Test
    void aConnectorsTasksShareOneSharingThatTheLastToLetGoCloses() {
        ConnectorScans.Hold first = ConnectorScans.hold("orders-src", URL);
        ConnectorScans.Hold second = ConnectorScans.hold("orders-src", URL);
        assertSame(first.sharing(), second.sharing());

        first.close();
        first.close(); // a second close of one hold lets go of nothing more
        assertTrue(ConnectorScans.held("orders-src", URL), "the second task still holds it");

        second.close();
        assertFalse(ConnectorScans.held("orders-src", URL));
        assertTrue(second.sharing().isClosed(), "closed with its last hold: " + second.sharing());

        ConnectorScans.Hold later = ConnectorScans.hold("orders-src", URL);
        assertNotSame(second.sharing(), later.sharing(), "a later task starts a new sharing");
        later.close();
    }

    @Test
    void anotherConnectorOrAnotherDatabaseNeverShares() {
        try (ConnectorScans.Hold orders = ConnectorScans.hold("orders-src", URL);
             ConnectorScans.Hold copy = ConnectorScans.hold("orders-copy", URL);
             ConnectorScans.Hold elsewhere = ConnectorScans.hold("orders-src", "jdbc:postgresql://other/app")) {
            assertNotSame(orders.sharing(), copy.sharing(), "same database, queue and consumer, another connector");
            assertNotSame(orders.sharing(), elsewhere.sharing(), "same name, another database (another cluster)");
        }
        assertFalse(ConnectorScans.held("orders-src", URL));
        assertFalse(ConnectorScans.held("orders-copy", URL));
    }
}

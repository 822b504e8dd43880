/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.quickstart.postgres.Database;
import org.junit.jupiter.api.Test;

class HintsTest {

    private final QuickstartRun.Endpoints endpoints = new QuickstartRun.Endpoints("http://127.0.0.1:8083/",
            "127.0.0.1:9092", new Database("jdbc:postgresql://localhost:5432/postgres?user=postgres", "postgres", "pw"),
            "file_events", "file-events", "file-events-out", "file-events-dlq", "pgque-sink", "pgque-source");

    @Test
    void psqlGetsALibpqUrlWithoutThePassword() {
        assertEquals("postgresql://postgres@localhost:5432/postgres", Hints.psqlUrl(endpoints));
    }

    @Test
    void hintsNameTheRealAddresses() {
        String text = Hints.whileRunning(endpoints);
        assertTrue(text.contains("http://127.0.0.1:8083/connectors?expand=status"), text);
        assertTrue(text.contains("java -jar " + Hints.DEFAULT_JAR + " consume file-events-out --bootstrap-servers=127.0.0.1:9092"), text);
        assertTrue(text.contains("java -jar " + Hints.DEFAULT_JAR + " produce file-events --bootstrap-servers=127.0.0.1:9092"), text);
        assertTrue(text.contains("consume file-events-dlq --bootstrap-servers=127.0.0.1:9092 --from-beginning"), text);
        assertTrue(!text.contains("kafka-console"), "no tool the user may not have: " + text);
        assertTrue(text.contains("connectors/pgque-sink/restart"), text);
        assertTrue(!text.contains("pw"), "no password in the hints");
    }
}

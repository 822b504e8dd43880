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
        assertTrue(text.contains("--bootstrap-server 127.0.0.1:9092 --topic file-events-out"), text);
        assertTrue(text.contains("--topic file-events-dlq"), text);
        assertTrue(text.contains("connectors/pgque-sink/restart"), text);
        assertTrue(!text.contains("pw"), "no password in the hints");
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class EngineVersionTest {

    @Test
    void readsTheMarkerLineOfAScript() {
        String script = "-- PgQue engine\n-- says pgque-engine-version: 9.9.9 in prose\n"
                + "-- pgque-engine-version: 1.4.2\nBEGIN;\nCOMMIT;\n";
        assertEquals(Optional.of("1.4.2"), EngineVersion.fromScript(script));
        assertEquals(Optional.of("0.1.0-devel"),
                EngineVersion.fromScript("BEGIN;\r\n-- pgque-engine-version: 0.1.0-devel\r\nCOMMIT;"));
        assertTrue(EngineVersion.fromScript("BEGIN;\nCOMMIT;\n").isEmpty());
    }

    @Test
    void comparesByNumbersThenPreRelease() {
        assertTrue(EngineVersion.compare("1.2.0", "1.10.0") < 0);
        assertTrue(EngineVersion.compare("2.0.0", "1.99.99") > 0);
        assertEquals(0, EngineVersion.compare("1.2.3", "1.2.3"));
        assertTrue(EngineVersion.compare("1.2.3-devel", "1.2.3") < 0);
        assertTrue(EngineVersion.compare("1.2.3", "1.2.3-devel") > 0);
        assertEquals(0, EngineVersion.compare("1.2.3-devel", "1.2.3-devel"));
        assertThrows(IllegalArgumentException.class, () -> EngineVersion.compare("1.2", "1.2.0"));
        assertThrows(IllegalArgumentException.class, () -> EngineVersion.compare(null, "1.2.0"));
    }
}

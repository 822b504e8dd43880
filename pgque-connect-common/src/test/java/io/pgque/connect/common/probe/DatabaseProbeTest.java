/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.probe;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What needs no database: failure messages never carry a secret, and an unreachable server fails fast. */
class DatabaseProbeTest {

    private static ConnectionSettings settings(String url) {
        return ConnectionSettings.from(new AbstractConfig(ConnectionConfigDef.addTo(new ConfigDef()), Map.of(
                ConnectionConfigDef.URL, url,
                ConnectionConfigDef.USER, "app",
                ConnectionConfigDef.PASSWORD, "pw-Secret-1",
                ConnectionConfigDef.SSL_KEY_PASSWORD, "key-Secret-2",
                // A refused connection answers at once; the bound only has to outlast a stalled,
                // loaded machine, where 1 s let the driver report a timeout without the port.
                ConnectionConfigDef.TIMEOUT_MS, "30000"), false));
    }

    @Test
    void describeMasksBothPasswords() {
        String text = DatabaseProbe.describe(new SQLException("server said pw-Secret-1 and key-Secret-2"),
                settings("jdbc:postgresql://localhost:1/app"));
        assertEquals("server said [hidden] and [hidden]", text);
    }

    @Test
    void anUnreachableServerIsAnSqlExceptionWithoutThePassword() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        ConnectionSettings settings = settings("jdbc:postgresql://localhost:" + port + "/app?sslmode=disable");
        SQLException e = assertThrows(SQLException.class, () -> DatabaseProbe.open(settings, "probe-test"));
        String text = DatabaseProbe.describe(e, settings);
        assertTrue(text.contains(Integer.toString(port)), text);
        assertTrue(!text.contains("pw-Secret-1") && !text.contains("key-Secret-2"), text);
    }
}

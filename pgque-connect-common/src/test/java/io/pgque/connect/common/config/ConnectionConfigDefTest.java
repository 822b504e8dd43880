/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConnectionConfigDefTest {

    private static final ConfigDef DEF =
            EngineConfigDef.addTo(ConnectionConfigDef.addTo(new ConfigDef()), "What the guarantee means.");

    private static Map<String, String> minimal() {
        Map<String, String> props = new HashMap<>();
        props.put("connection.url", "jdbc:postgresql://localhost:5432/app");
        return props;
    }

    private static AbstractConfig config(Map<String, String> props) {
        return new AbstractConfig(DEF, props, false);
    }

    private static ConfigException rejected(String key, String value) {
        Map<String, String> props = minimal();
        props.put(key, value);
        return assertThrows(ConfigException.class, () -> config(props));
    }

    @Test
    void defaultsApplyWhenOnlyTheUrlIsGiven() {
        AbstractConfig config = config(minimal());
        ConnectionSettings settings = ConnectionSettings.from(config);
        assertEquals("jdbc:postgresql://localhost:5432/app", settings.url());
        assertEquals("", settings.user());
        assertNull(settings.password());
        assertEquals(3, settings.poolSize());
        assertEquals(3, settings.attempts());
        assertEquals(2_000L, settings.backoffMs());
        assertEquals(10_000L, settings.timeoutMs());
        assertEquals(45_000L, settings.socketTimeoutMs());
        assertEquals(30_000L, settings.statementTimeoutMs());
        assertEquals(10_000L, settings.lockTimeoutMs());
        assertTrue(ConnectionConfigDef.problems(config.values()).isEmpty(), "the defaults satisfy the rules");
        assertEquals(SslMode.PREFER, settings.sslMode());
        assertEquals("none", config.getString("pgque.schema.install"));
        assertEquals("at_least_once", config.getString("pgque.delivery.guarantee"));
    }

    @Test
    void timeoutsOutsideTheirRangesAreRejectedNamingKeyAndRange() {
        // Key, a value outside the range, the bound it breaks.
        for (String[] bad : new String[][] {{"connection.socket.timeout.ms", "999", "1000"},
                {"connection.socket.timeout.ms", "3600001", "3600000"}, {"connection.statement.timeout.ms", "-1", "0"},
                {"connection.lock.timeout.ms", "3600001", "3600000"}}) {
            ConfigException e = rejected(bad[0], bad[1]);
            assertTrue(e.getMessage().contains(bad[0]), e.getMessage());
            assertTrue(e.getMessage().contains(bad[2]), "names the bound: " + e.getMessage());
        }
    }

    @Test
    void socketTimeoutMustOutlastTheStatementTimeout() {
        Map<String, String> props = minimal();
        props.put("connection.statement.timeout.ms", "60000");
        Map<String, String> problems = ConnectionConfigDef.problems(config(props).values());
        String message = problems.get("connection.socket.timeout.ms");
        assertTrue(message != null && message.contains("connection.socket.timeout.ms=45000")
                && message.contains("connection.statement.timeout.ms=60000") && message.contains("61000"), problems.toString());

        props.put("connection.socket.timeout.ms", "61000");
        assertTrue(ConnectionConfigDef.problems(config(props).values()).isEmpty(), "1 s of margin is enough");
        props.put("connection.socket.timeout.ms", "60500");
        assertEquals(1, ConnectionConfigDef.problems(config(props).values()).size(), "half a second is not");
    }

    @Test
    void noStatementTimeoutLeavesTheSocketTimeoutFree() {
        Map<String, String> props = minimal();
        props.put("connection.statement.timeout.ms", "0");
        props.put("connection.socket.timeout.ms", "1000");
        assertTrue(ConnectionConfigDef.problems(config(props).values()).isEmpty());
    }

    @Test
    void urlIsRequired() {
        ConfigException e = assertThrows(ConfigException.class, () -> config(Map.of()));
        assertTrue(e.getMessage().contains("connection.url"), e.getMessage());
    }

    @Test
    void nonPostgresUrlIsRejectedWithoutEchoingIt() {
        ConfigException e = rejected("connection.url", "jdbc:mysql://secret-host/db");
        assertTrue(e.getMessage().contains("connection.url"), e.getMessage());
        assertTrue(e.getMessage().contains("jdbc:postgresql:"), e.getMessage());
        assertFalse(e.getMessage().contains("secret-host"), e.getMessage());
    }

    @Test
    void aUrlTheDriverCannotReadIsRejectedNamingTheKey() {
        for (String url : new String[] {"jdbc:postgresql://db-host:54x2/app", "jdbc:postgresql://db-host:99999/app",
                "jdbc:postgresql://db-host/app?options=%zz"}) {
            ConfigException e = rejected("connection.url", url);
            assertTrue(e.getMessage().contains("connection.url") && e.getMessage().contains("cannot read"), e.getMessage());
            assertFalse(e.getMessage().contains("db-host"), e.getMessage());
        }
    }

    @Test
    void urlCarryingAPasswordIsRejectedWithoutEchoingIt() {
        ConfigException e = rejected("connection.url", "jdbc:postgresql://h/db?user=u&password=s3cr3t");
        assertTrue(e.getMessage().contains("connection.url"), e.getMessage());
        assertTrue(e.getMessage().contains("connection.password"), e.getMessage());
        assertFalse(e.getMessage().contains("s3cr3t"), e.getMessage());

        ConfigException tls = rejected("connection.url", "jdbc:postgresql://h/db?sslPassword=k3y");
        assertTrue(tls.getMessage().contains("connection.ssl.key.password"), tls.getMessage());
        assertFalse(tls.getMessage().contains("k3y"), tls.getMessage());
    }

    @Test
    void poolSizeOutsideOneToSixtyFourIsRejected() {
        for (String bad : new String[] {"0", "65"}) {
            ConfigException e = rejected("connection.pool.size", bad);
            assertTrue(e.getMessage().contains("connection.pool.size"), e.getMessage());
        }
    }

    @Test
    void numericLimitsNameTheirKey() {
        for (String key : new String[] {"connection.attempts", "connection.backoff.ms", "connection.timeout.ms"}) {
            ConfigException e = rejected(key, "-1");
            assertTrue(e.getMessage().contains(key), e.getMessage());
        }
    }

    @Test
    void unknownTlsModeNamesTheKeyAndTheModes() {
        ConfigException e = rejected("connection.ssl.mode", "strict");
        assertTrue(e.getMessage().contains("connection.ssl.mode"), e.getMessage());
        assertTrue(e.getMessage().contains("verify-full"), e.getMessage());
    }

    @Test
    void engineChoicesNameTheirKey() {
        assertTrue(rejected("pgque.schema.install", "always").getMessage().contains("pgque.schema.install"));
        ConfigException e = rejected("pgque.delivery.guarantee", "at_most_once");
        assertTrue(e.getMessage().contains("pgque.delivery.guarantee"), e.getMessage());
        assertTrue(e.getMessage().contains("at_least_once, exactly_once"), e.getMessage());
    }

    @Test
    void tlsSettingsBecomeDriverPropertiesOnlyWhenGiven() {
        Map<String, String> props = minimal();
        props.put("connection.ssl.mode", "Verify-CA");
        props.put("connection.ssl.root.cert", "/etc/ssl/ca.pem");
        props.put("connection.ssl.key.password", "keypass");
        Properties driver = ConnectionSettings.from(config(props)).tlsDriverProperties();
        assertEquals("verify-ca", driver.getProperty("sslmode"));
        assertEquals("/etc/ssl/ca.pem", driver.getProperty("sslrootcert"));
        assertEquals("keypass", driver.getProperty("sslpassword"));
        assertFalse(driver.containsKey("sslcert"));
        assertFalse(driver.containsKey("sslkey"));
    }

    @Test
    void settingsNeverPrintSecrets() {
        Map<String, String> props = minimal();
        props.put("connection.user", "writer");
        props.put("connection.password", "db-pass-123");
        props.put("connection.ssl.key.password", "key-pass-456");
        AbstractConfig config = config(props);
        String text = ConnectionSettings.from(config).toString();
        assertFalse(text.contains("db-pass-123"), text);
        assertFalse(text.contains("key-pass-456"), text);
        assertTrue(text.contains("writer"), text);
        assertFalse(config.values().toString().contains("db-pass-123"));
    }
}

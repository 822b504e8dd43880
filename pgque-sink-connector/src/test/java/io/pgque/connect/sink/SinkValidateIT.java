/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.testing.EmbeddedPg;
import io.pgque.testsupport.LogCapture;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The worker's REST validate endpoint ({@code PUT /connector-plugins/{class}/config/validate})
 * reports each problem, the configuration's and the live database's, under the key to change.
 */
class SinkValidateIT {

    private static final String WRITER = "sink_validate_writer";
    private static final String NOBODY = "sink_validate_nobody";
    /** May send and look at queues, but not store Kafka offsets: enough for at_least_once only. */
    private static final String SEND_ONLY = "sink_validate_send_only";
    private static EmbeddedPg.TestDatabase db;
    private static SinkCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        db = EmbeddedPg.newDatabase("sink_validate").installEngine();
        cluster = new SinkCluster("sink-validate", 1, db, Map.of());
        cluster.createQueue("existing");
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute("drop role if exists " + WRITER);
            s.execute("drop role if exists " + NOBODY);
            s.execute("create role " + WRITER + " login");
            s.execute("grant pgque_writer to " + WRITER);
            s.execute("create role " + NOBODY + " login");
            s.execute("drop role if exists " + SEND_ONLY);
            s.execute("create role " + SEND_ONLY + " login");
            s.execute("grant usage on schema pgque to " + SEND_ONLY);
            s.execute("grant execute on function pgque.send_events(text,text[],text[],text[],text[],text[],text[]), "
                    + "pgque.get_queue_info(text) to " + SEND_ONLY);
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Map<String, String> config(String... overrides) {
        Map<String, String> config = new LinkedHashMap<>(cluster.sinkConfig("validated", "orders", "existing"));
        for (int i = 0; i < overrides.length; i += 2) {
            if (overrides[i + 1] == null) {
                config.remove(overrides[i]);
            } else {
                config.put(overrides[i], overrides[i + 1]);
            }
        }
        return config;
    }

    /** Key → error messages, for the keys that have any. */
    private static Map<String, List<String>> errors(Map<String, String> config) {
        ConfigInfos infos = cluster.connect.validateConnectorConfig(PgQueSinkConnector.class.getSimpleName(), config);
        Map<String, List<String>> errors = new LinkedHashMap<>();
        for (ConfigInfo info : infos.configs()) {
            if (!info.configValue().errors().isEmpty()) {
                errors.put(info.configValue().name(), info.configValue().errors());
            }
        }
        assertEquals(infos.errorCount(), errors.values().stream().mapToInt(List::size).sum(), errors::toString);
        return errors;
    }

    private static void assertOnly(Map<String, List<String>> errors, String key, String... parts) {
        assertEquals(List.of(key), List.copyOf(errors.keySet()), errors::toString);
        String message = String.join(" | ", errors.get(key));
        for (String part : parts) {
            assertTrue(message.contains(part), "'" + part + "' in: " + message);
        }
    }

    @Test
    void aWorkingConfigurationHasNoErrors() {
        assertEquals(Map.of(), errors(config()));
        assertEquals(Map.of(), errors(config("connection.url", db.jdbcUrl(WRITER))), "a plain writer may send to an existing queue");
    }

    @Test
    void invalidValuesAreReportedOnTheirKeys() {
        assertOnly(errors(config("pgque.tombstones", "drop")), "pgque.tombstones", "skip, send, fail");
        assertOnly(errors(config("pgque.dedup.key", "${key}")), "pgque.dedup.ttl.ms", "required");
        assertOnly(errors(config("connection.url", "jdbc:mysql://h/db")), "connection.url", "jdbc:postgresql:");
    }

    /**
     * Typing errors are no outage: an unknown host, a malformed URL, an unknown role or a
     * database that does not exist fail validation on the key to change, and a task started with
     * them anyway (validation is not always run) fails at once, naming that key.
     */
    @Test
    void typingErrorsInTheConnectionAreErrorsOnTheirKeysInValidateAndAtTaskStart() {
        String noDatabase = "jdbc:postgresql://127.0.0.1:" + db.port() + "/sink_validate_no_such_db?user=postgres";
        assertOnly(errors(config("connection.url", noDatabase)), "connection.url",
                "Database 'sink_validate_no_such_db' does not exist", "3D000");
        assertOnly(errors(config("connection.url", "jdbc:postgresql://no-such-host.invalid:5432/app")), "connection.url",
                "Unknown host 'no-such-host.invalid'");
        assertOnly(errors(config("connection.url", "jdbc:postgresql://db-host:54x2/app")), "connection.url",
                "cannot read this URL");
        assertOnly(errors(config("connection.url", db.jdbcUrl("sink_validate_no_such_role"))), "connection.user",
                "28000", "sink_validate_no_such_role");

        PgQueSinkTask task = new PgQueSinkTask();
        ConfigException refused = assertThrows(ConfigException.class,
                () -> task.start(config("connection.url", noDatabase)));
        assertTrue(refused.getMessage().startsWith("connection.url: Database 'sink_validate_no_such_db' does not exist"),
                refused.getMessage());
        task.stop();
    }

    /**
     * No server answers (PostgreSQL down during a deployment): the configuration is accepted, so
     * the tasks can wait for the database, and the worker log says what was skipped, without the
     * password. A server that answers and refuses is still an error (see the role tests).
     */
    @Test
    void anUnreachableDatabaseIsAcceptedWithAWarningWithoutThePassword() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Map<String, String> config = config("connection.url", "jdbc:postgresql://localhost:" + closedPort + "/app",
                "connection.user", "app", "connection.password", "pw-Secret-42");
        List<Map<String, List<String>>> errors = new java.util.ArrayList<>();
        String log = LogCapture.during(() -> errors.add(errors(config)));
        assertEquals(Map.of(), errors.get(0));
        assertTrue(log.contains("Skipped the database checks of the sink's configuration: cannot connect to "
                + "jdbc:postgresql://localhost:" + closedPort + "/app as user 'app'"), log);
        assertFalse(log.contains("pw-Secret-42"), log);
    }

    @Test
    void aMissingQueueIsReportedOnTheKeyThatNamesIt() {
        assertOnly(errors(config("pgque.queue", "missing_queue")), "pgque.queue", "Queue 'missing_queue' does not exist",
                "pgque.queue.auto.create=true");
        assertOnly(errors(config("pgque.queue", "", "pgque.queue.map", "orders:missing_mapped")), "pgque.queue.map",
                "Queue 'missing_mapped' does not exist");
        assertOnly(errors(config("pgque.queue", "q_${topic}", "topics", "orders")), "pgque.queue", "Queue 'q_orders' does not exist");
        assertEquals(Map.of(), errors(config("pgque.queue", "missing_queue", "pgque.queue.auto.create", "true")),
                "the superuser may create it");
    }

    @Test
    void rolesThatMayNotSendOrCreateAreReported() {
        assertOnly(errors(config("connection.url", db.jdbcUrl(NOBODY))), "connection.user",
                "User '" + NOBODY + "' may not send events", "GRANT pgque_writer TO " + NOBODY);
        assertOnly(errors(config("connection.url", db.jdbcUrl(WRITER), "pgque.queue", "missing_queue",
                "pgque.queue.auto.create", "true")), "pgque.queue.auto.create", "may not create it", "pgque_admin");
    }

    @Test
    void exactlyOnceNeedsTheRightToStoreOffsets() {
        assertEquals(Map.of(), errors(config("connection.url", db.jdbcUrl(WRITER), "pgque.delivery.guarantee", "exactly_once")),
                "the writer role may store offsets");
        assertEquals(Map.of(), errors(config("connection.url", db.jdbcUrl(SEND_ONLY))), "sending is enough for at_least_once");
        assertOnly(errors(config("connection.url", db.jdbcUrl(SEND_ONLY), "pgque.delivery.guarantee", "exactly_once")),
                "connection.user", "may not read the stored Kafka offsets", "pgque.sink_offsets(text)",
                "may not store Kafka offsets", "pgque.sink_commit_offsets(", "GRANT pgque_writer TO " + SEND_ONLY);
    }

    @Test
    void aDelayNeedsTheRightToHoldEventsAndRulesOutDedup() {
        assertEquals(Map.of(), errors(config("connection.url", db.jdbcUrl(WRITER), "pgque.delay.header", "deliver-at")),
                "the writer role may hold events");
        assertOnly(errors(config("connection.url", db.jdbcUrl(SEND_ONLY), "pgque.delay.ms", "60000")),
                "connection.user", "may not hold events until their due time", "pgque.send_events_at(",
                "GRANT pgque_writer TO " + SEND_ONLY);
        assertOnly(errors(config("pgque.delay.ms", "60000", "pgque.dedup.key", "${topic}-${offset}",
                "pgque.dedup.ttl.ms", "1000")), "pgque.delay.ms", "cannot be combined with pgque.dedup.key");
    }

    @Test
    void aMissingEngineIsReportedOnTheInstallKey() {
        EmbeddedPg.TestDatabase empty = EmbeddedPg.newDatabase("sink_validate_empty");
        assertOnly(errors(config("connection.url", empty.jdbcUrl(), "pgque.queue.auto.create", "true")),
                "pgque.schema.install", "not installed", "pgque.schema.install=if_missing");
        assertEquals(Map.of(), errors(config("connection.url", empty.jdbcUrl(), "pgque.queue.auto.create", "true",
                "pgque.schema.install", "if_missing")));
        assertOnly(errors(config("connection.url", empty.jdbcUrl(), "pgque.schema.install", "if_missing")),
                "pgque.queue", "Queue 'existing' does not exist: the engine is not installed yet");
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import io.pgque.client.PgQue;
import io.pgque.testing.EmbeddedPg;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.provider.FileConfigProvider;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The samples' passwords are config provider references, and a real worker with a
 * FileConfigProvider resolves them: validate() and the tasks log in, through a pg_hba.conf that
 * checks the password (scram-sha-256), as roles whose passwords only the secrets file holds. And
 * what Connect's REST API returns of a password, endpoint by endpoint, as docs/production.md says.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ConnectorSecretsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String SINK_ROLE = "secrets_it_sink";
    private static final String SOURCE_ROLE = "secrets_it_source";
    private static final String SINK_PASSWORD = "Sink-Pw-only-in-the-file-1";
    private static final String SOURCE_PASSWORD = "Source-Pw-only-in-the-file-2";

    private static EmbeddedPg.TestDatabase db;
    private static Path hba;
    private static String hbaBefore;
    private static EmbeddedConnectCluster connect;
    private static Path secrets;
    private static Path wrongSecrets;

    @BeforeAll
    static void start() throws Exception {
        db = EmbeddedPg.newDatabase("connector_secrets").installEngine();
        PgQue.using(db.superuser()).queues().create("file_events");
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute("set password_encryption = 'scram-sha-256'");
            s.execute("create role " + SINK_ROLE + " login password '" + SINK_PASSWORD + "' in role pgque_writer");
            s.execute("create role " + SOURCE_ROLE + " login password '" + SOURCE_PASSWORD + "' in role pgque_reader, pgque_ticker");
            try (ResultSet rs = s.executeQuery("show hba_file")) {
                rs.next();
                hba = Path.of(rs.getString(1));
            }
            hbaBefore = Files.readString(hba);
            StringBuilder scram = new StringBuilder();
            for (String role : List.of(SINK_ROLE, SOURCE_ROLE)) {
                scram.append("host all ").append(role).append(" 127.0.0.1/32 scram-sha-256\n")
                        .append("host all ").append(role).append(" ::1/128 scram-sha-256\n");
            }
            Files.writeString(hba, scram + hbaBefore);
            s.execute("select pg_reload_conf()");
        }
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "pgque-secrets-");
        secrets = Files.writeString(dir.resolve("pgque-db.properties"),
                "sink-password=" + SINK_PASSWORD + "\nsource-password=" + SOURCE_PASSWORD + "\n");
        wrongSecrets = Files.writeString(dir.resolve("wrong.properties"), "sink-password=not-it\nsource-password=nor-this\n");
        connect = Samples.startWorkerWithBothPlugins("pgque-secrets", Map.of("config.providers", "file",
                "config.providers.file.class", FileConfigProvider.class.getName()));
    }

    @AfterAll
    static void stop() throws Exception {
        if (connect != null) {
            connect.stop();
        }
        if (hba != null) {
            Files.writeString(hba, hbaBefore);
            try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
                s.execute("select pg_reload_conf()");
            }
        }
    }

    /** The sink sample as an operator fills it in, its password read from {@code secretsFile}. */
    private static Map<String, String> sink(Path secretsFile) {
        Map<String, String> config = Samples.filled("pgque-sink.json", Map.of(
                "PGQUE_DB_ADDRESS", "localhost:" + db.port() + "/" + db.name(),
                "PGQUE_DB_USER", SINK_ROLE,
                "PGQUE_SECRETS_FILE", secretsFile.toString()));
        config.put("errors.deadletterqueue.topic.replication.factor", "1"); // one broker
        return config;
    }

    private static Map<String, String> source(Path secretsFile) {
        return Samples.filled("pgque-source.json", Map.of(
                "PGQUE_JDBC_URL", "jdbc:postgresql://localhost:" + db.port() + "/" + db.name(),
                "PGQUE_DB_USER", SOURCE_ROLE,
                "PGQUE_SECRETS_FILE", secretsFile.toString()));
    }

    private static List<String> errorsOn(String plugin, Map<String, String> config, String key) {
        ConfigInfos infos = connect.validateConnectorConfig(plugin, config);
        for (ConfigInfo info : infos.configs()) {
            if (info.configValue().name().equals(key)) {
                return info.configValue().errors();
            }
        }
        throw new AssertionError("validate() did not report " + key);
    }

    @Test
    void theWorkerResolvesTheSamplesPasswordsAndTheConnectorsLogInWithThem() throws Exception {
        assertEquals("${file:" + secrets + ":sink-password}", sink(secrets).get("connection.password"));
        assertEquals(List.of(), errorsOn("PgQueSinkConnector", sink(secrets), "connection.password"));
        assertEquals(List.of(), errorsOn("PgQueSourceConnector", source(secrets), "connection.password"));
        List<String> refused = errorsOn("PgQueSinkConnector", sink(wrongSecrets), "connection.password");
        assertFalse(refused.isEmpty(), "validate() logs in: the password of the other file is refused");

        connect.kafka().createTopic("file-events", 1);
        Map<String, String> sink = sink(secrets);
        Map<String, String> source = source(secrets);
        connect.configureConnector(sink.remove("name"), sink);
        connect.configureConnector(source.remove("name"), source);
        connect.assertions().assertConnectorAndAtLeastNumTasksAreRunning("pgque-sink", 1, "sink did not start");
        connect.assertions().assertConnectorAndAtLeastNumTasksAreRunning("pgque-source", 1, "source did not start");

        Map<String, Object> producerProps = new HashMap<>();
        producerProps.put("bootstrap.servers", connect.kafka().bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer = connect.kafka().createProducer(producerProps)) {
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>("file-events",
                    "tenant-1".getBytes(StandardCharsets.UTF_8), "{\"file\":\"a.txt\"}".getBytes(StandardCharsets.UTF_8));
            record.headers().add("event_type", "FileCreated".getBytes(StandardCharsets.UTF_8));
            producer.send(record).get();
        }
        Map<String, Object> consumerProps = new HashMap<>();
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, "secrets-it");
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = connect.kafka().createConsumerAndSubscribeTo(consumerProps,
                "file-events-out")) {
            String value = null;
            while (value == null) {
                assertTrue(System.nanoTime() < deadline, "the record did not come through the sink, the queue and the source");
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    value = new String(record.value(), StandardCharsets.UTF_8);
                }
            }
            assertEquals("{\"file\":\"a.txt\"}", value);
        }
        connect.deleteConnector("pgque-sink");
        connect.deleteConnector("pgque-source");
    }

    /**
     * Connect keeps a connector's config as it was sent: every endpoint that shows the config
     * shows a password given as such; only validate masks it. A reference shows as the
     * reference.
     */
    @Test
    void theRestApiReturnsAPasswordAsSentAndAReferenceAsTheReference() throws InterruptedException {
        Map<String, String> referenced = sink(secrets);
        referenced.put("topics", "rest-in-a");
        referenced.put("errors.deadletterqueue.topic.name", "rest-dlq-a");
        Map<String, String> literal = new LinkedHashMap<>(sink(secrets));
        literal.put("topics", "rest-in-b");
        literal.put("errors.deadletterqueue.topic.name", "rest-dlq-b");
        literal.put("connection.password", SINK_PASSWORD);
        referenced.remove("name");
        literal.remove("name");
        connect.configureConnector("rest-referenced", referenced);
        connect.configureConnector("rest-literal", literal);
        connect.assertions().assertConnectorAndAtLeastNumTasksAreRunning("rest-referenced", 1, "did not start");
        connect.assertions().assertConnectorAndAtLeastNumTasksAreRunning("rest-literal", 1, "did not start");

        for (String endpoint : List.of("connectors/%s/config", "connectors/%s", "connectors/%s/tasks")) {
            String shownLiteral = get(endpoint, "rest-literal");
            assertTrue(shownLiteral.contains(SINK_PASSWORD), endpoint + " returns the password as sent: " + shownLiteral);
            String shownReferenced = get(endpoint, "rest-referenced");
            assertFalse(shownReferenced.contains(SINK_PASSWORD), endpoint + ": " + shownReferenced);
            assertTrue(shownReferenced.contains("${file:" + secrets + ":sink-password}"), endpoint + ": " + shownReferenced);
        }
        assertTrue(get("connectors?expand=info", "").contains(SINK_PASSWORD), "the list with expand=info too");
        literal.put("name", "rest-literal");
        ConfigInfos validated = connect.validateConnectorConfig("PgQueSinkConnector", literal);
        for (ConfigInfo info : validated.configs()) {
            if (info.configValue().name().equals("connection.password")) {
                assertEquals("[hidden]", info.configValue().value(), "validate masks it");
            }
        }
        connect.deleteConnector("rest-referenced");
        connect.deleteConnector("rest-literal");
    }

    private static String get(String endpoint, String connector) {
        // The test kit's client hands the body over as the entity of the response it builds.
        var response = connect.requestGet(connect.endpointForResource(String.format(endpoint, connector)));
        assertEquals(200, response.getStatus(), endpoint);
        return String.valueOf(response.getEntity());
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.pgque.connect.sink.Fixtures.props;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cross-field rules, seen the way validate() reports them: each key's own check, then these
 * rules. The live database checks that validate() adds are covered by SinkValidateIT.
 */
class SinkConfigValidatorTest {

    private static Map<String, List<String>> errors(String... overrides) {
        Map<String, String> props = props(overrides);
        Config config = new Config(PgQueSinkConfig.configDef().validate(props));
        SinkConfigValidator.addTo(config, props);
        return config.configValues().stream()
                .filter(value -> !value.errorMessages().isEmpty())
                .collect(Collectors.toMap(ConfigValue::name, ConfigValue::errorMessages));
    }

    private static void assertOnlyError(Map<String, List<String>> errors, String key, String part) {
        assertEquals(List.of(key), List.copyOf(errors.keySet()), errors::toString);
        assertTrue(errors.get(key).get(0).contains(part), errors::toString);
    }

    @Test
    void validConfigurationHasNoErrors() {
        assertEquals(Map.of(), errors());
        assertEquals(Map.of(), errors("pgque.partition.key", "header:customer", "pgque.queue", "q_${topic}"));
        assertEquals(Map.of(), errors("pgque.dedup.key", "${topic}-${offset}", "pgque.dedup.ttl.ms", "1000"));
    }

    @Test
    void exactlyOnceIsAcceptedAloneAndWithDedup() {
        assertEquals(Map.of(), errors("pgque.delivery.guarantee", "exactly_once"));
        assertEquals(Map.of(), errors("pgque.delivery.guarantee", "exactly_once",
                "pgque.dedup.key", "${header:event-id}", "pgque.dedup.ttl.ms", "60000"),
                "the offsets cover the pipe, dedup the business keys: both at once is fine");
    }

    @Test
    void theEnvelopeNeedsTheValuesTextAndJsonPayloads() {
        String envelope = "pgque.value.envelope";
        assertEquals(Map.of(), errors(envelope, "connect-json"), "a converter the connector does not name passes");
        assertEquals(Map.of(), errors(envelope, "CONNECT-JSON",
                "value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter"));
        assertEquals(Map.of(), errors(envelope, "connect-json",
                "value.converter", "org.apache.kafka.connect.storage.StringConverter"));
        assertEquals(Map.of(), errors(envelope, "none", "value.converter", "org.apache.kafka.connect.json.JsonConverter"));
        assertOnlyError(errors(envelope, "connect-json", "value.converter", "org.apache.kafka.connect.json.JsonConverter"),
                envelope, "pgque.value.envelope=connect-json reads the envelope's JSON text, but "
                        + "value.converter=org.apache.kafka.connect.json.JsonConverter does not hand the sink that text");
        assertTrue(errors(envelope, "connect-json", "value.converter", "io.confluent.connect.avro.AvroConverter")
                .get(envelope).get(0).contains("set value.converter=org.apache.kafka.connect.converters.ByteArrayConverter"));
        assertOnlyError(errors(envelope, "connect-json", "pgque.payload.format", "string"), envelope,
                "needs pgque.payload.format=json, not string");
        assertOnlyError(errors(envelope, "json"), envelope, "must be one of none, connect-json (case-insensitive)");
    }

    @Test
    void socketTimeoutMustOutlastTheStatementTimeout() {
        assertOnlyError(errors("connection.statement.timeout.ms", "45000"), "connection.socket.timeout.ms",
                "connection.socket.timeout.ms=45000 must be at least 1000 ms more than connection.statement.timeout.ms=45000");
        assertEquals(Map.of(), errors("connection.statement.timeout.ms", "45000", "connection.socket.timeout.ms", "46000"));
    }

    /** The driver lets the URL's user win; validate says so under connection.user instead of logging in as someone else. */
    @Test
    void aUserInTheUrlMustNotContradictConnectionUser() {
        String url = "jdbc:postgresql://db.example:5432/app?user=app_owner";
        assertOnlyError(errors("connection.url", url, "connection.user", "kafka_sink"), "connection.user",
                "connection.user=kafka_sink and the user parameter of connection.url (app_owner) name different roles");
        assertEquals(Map.of(), errors("connection.url", url, "connection.user", ""), "the URL alone may name the user");
        assertEquals(Map.of(), errors("connection.url", url, "connection.user", "app_owner"), "the same role twice");
    }

    @Test
    void aDelayIsAcceptedAloneWithExactlyOnceButNotWithDedup() {
        assertEquals(Map.of(), errors("pgque.delay.header", "deliver-at"));
        assertEquals(Map.of(), errors("pgque.delay.ms", "60000", "pgque.delivery.guarantee", "exactly_once"));
        assertOnlyError(errors("pgque.delay.header", "deliver-at", "pgque.dedup.key", "${topic}-${offset}",
                "pgque.dedup.ttl.ms", "1000"), "pgque.delay.header", "cannot be combined with pgque.dedup.key");
        assertOnlyError(errors("pgque.delay.ms", "500", "pgque.dedup.key", "${topic}-${offset}",
                "pgque.dedup.ttl.ms", "1000"), "pgque.delay.ms", "cannot be combined with pgque.dedup.key");
        assertEquals(Map.of(), errors("pgque.delay.ms", "0", "pgque.dedup.key", "${topic}-${offset}",
                "pgque.dedup.ttl.ms", "1000"), "no delay, no conflict");
    }

    @Test
    void delaySettingsOutOfRangeNameTheKeyAndWhatIsAllowed() {
        assertOnlyError(errors("pgque.delay.ms", "-1"), "pgque.delay.ms", "at least 0");
        assertOnlyError(errors("pgque.delay.ms", Long.toString(PgQueSinkConfig.DELAY_MS_MAX + 1)), "pgque.delay.ms",
                "no more than " + PgQueSinkConfig.DELAY_MS_MAX);
        assertOnlyError(errors("pgque.delay.ms", "soon"), "pgque.delay.ms", "LONG");
    }

    @Test
    void dedupKeyNeedsAWindow() {
        assertOnlyError(errors("pgque.dedup.key", "${key}"), "pgque.dedup.ttl.ms",
                "pgque.dedup.ttl.ms is required when pgque.dedup.key is set");
    }

    @Test
    void dedupKeyMustVaryPerRecord() {
        assertOnlyError(errors("pgque.dedup.key", "constant", "pgque.dedup.ttl.ms", "1000"), "pgque.dedup.key",
                "has no placeholder");
    }

    @Test
    void requiredPartitionKeyNeedsASource() {
        assertOnlyError(errors("pgque.partition.key", "none", "pgque.partition.key.required", "true"),
                "pgque.partition.key.required", "contradicts pgque.partition.key=none");
    }

    @Test
    void queueIsRequiredWithoutAMap() {
        assertOnlyError(errors("pgque.queue", ""), "pgque.queue", "pgque.queue is required unless pgque.queue.map");
    }

    @Test
    void mapMustCoverEveryListedTopicWhenThereIsNoQueue() {
        assertEquals(Map.of(), errors("pgque.queue", "", "topics", "orders,pay", "pgque.queue.map", "orders:o,pay:p"));
        assertOnlyError(errors("pgque.queue", "", "topics", "orders,pay", "pgque.queue.map", "orders:o"),
                "pgque.queue.map", "topics [pay] have no queue");
    }

    @Test
    void queueIsRequiredWithATopicRegex() {
        assertOnlyError(errors("pgque.queue", "", "topics", null, "topics.regex", "orders.*",
                "pgque.queue.map", "orders:o"), "pgque.queue", "required with topics.regex");
    }

    @Test
    void templatedQueueNameMustFitForEveryListedTopic() {
        String longTopic = "t".repeat(60);
        assertOnlyError(errors("pgque.queue", "${topic}", "topics", "orders," + longTopic), "pgque.queue",
                "for topic '" + longTopic + "'");
        assertEquals(Map.of(), errors("pgque.queue", "${topic}", "topics", "orders," + longTopic,
                "pgque.queue.map", longTopic + ":short"));
    }

    @Test
    void singleKeyErrorsAreNotEchoedByCrossFieldRules() {
        Map<String, List<String>> errors = errors("pgque.dedup.key", "${nope}");
        assertOnlyError(errors, "pgque.dedup.key", "unknown placeholder");
    }

    @Test
    void missingUrlIsReportedUnderItsKey() {
        Map<String, List<String>> errors = errors("connection.url", null);
        assertTrue(errors.containsKey("connection.url"), errors::toString);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.common.template.PlaceholderKind;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.pgque.connect.sink.Fixtures.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PgQueSinkConfigTest {

    @Test
    void defaultsFollowTheContract() {
        PgQueSinkConfig config = config();
        assertEquals("events", config.queueRouting().queueFor("anything"));
        assertFalse(config.queueAutoCreate());
        assertEquals("${topic}", config.eventType().source());
        assertEquals(PayloadFormat.JSON, config.payloadFormat());
        assertEquals(PartitionKeySource.Kind.RECORD_KEY, config.partitionKey().kind());
        assertFalse(config.partitionKeyRequired());
        assertTrue(config.extra3().isEmpty());
        assertTrue(config.extra4().isEmpty());
        assertEquals(TombstoneMode.SKIP, config.tombstones());
        assertTrue(config.dedupKey().isEmpty());
        assertNull(config.dedupTtlMs());
        assertEquals(SchemaInstall.NONE, config.schemaInstall());
        assertEquals(DeliveryGuarantee.AT_LEAST_ONCE, config.deliveryGuarantee());
        assertEquals(500, config.batchMaxRecords());
        assertEquals(10, config.retryMax());
        assertEquals(1_000L, config.retryBackoffMs());
        assertEquals(3, config.connection().poolSize());
    }

    @Test
    void everyContractKeyIsDefined() {
        List<String> contract = List.of("connection.url", "connection.user", "connection.password",
                "connection.pool.size", "connection.attempts", "connection.backoff.ms", "pgque.schema.install",
                "pgque.queue", "pgque.queue.auto.create", "pgque.event.type", "pgque.payload.format",
                "pgque.partition.key", "pgque.extra3", "pgque.extra4", "pgque.tombstones", "pgque.dedup.key",
                "pgque.dedup.ttl.ms", "pgque.delivery.guarantee");
        assertTrue(PgQueSinkConfig.configDef().names().containsAll(contract));
    }

    @Test
    void valuesAreParsed() {
        PgQueSinkConfig config = config("pgque.partition.key", "header:Customer-Id", "pgque.payload.format", "String",
                "pgque.dedup.key", "${key}", "pgque.dedup.ttl.ms", "60000", "pgque.delivery.guarantee", "at_least_once",
                "pgque.queue.auto.create", "true");
        assertEquals(PartitionKeySource.Kind.HEADER, config.partitionKey().kind());
        assertEquals("Customer-Id", config.partitionKey().headerName(), "header names keep their case");
        assertEquals(PayloadFormat.STRING, config.payloadFormat());
        assertEquals(60_000L, config.dedupTtlMs());
        assertEquals(DeliveryGuarantee.AT_LEAST_ONCE, config.deliveryGuarantee());
        assertTrue(config.queueAutoCreate());
    }

    /** Each invalid single value is refused with a message that names its key and what is allowed. */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "pgque.queue|${partition}|Allowed here: ${topic}",
        "pgque.queue|q_${topic|unclosed",
        "pgque.queue|a_queue_name_that_is_far_too_long_for_pgque_to_accept_it_at_all|at most 57",
        "pgque.queue.map|orders|topic:queue",
        "pgque.queue.map|orders:a,orders:b|mapped more than once",
        "pgque.queue.auto.create|maybe|true or false",
        "pgque.event.type|${headers}|not allowed here",
        "pgque.event.type|${nope}|unknown placeholder",
        "pgque.payload.format|xml|json, string, base64",
        "pgque.partition.key|value|record_key, header:NAME, none",
        "pgque.partition.key|header:|header name",
        "pgque.partition.key.required|sometimes|true or false",
        "pgque.extra3|${type}|Allowed here: ${topic}, ${partition}, ${offset}, ${key}, ${header:NAME}, ${headers}",
        "pgque.extra4|${header:}|header name",
        "pgque.tombstones|drop|skip, send, fail",
        "pgque.dedup.key|${offset|unclosed",
        "pgque.dedup.ttl.ms|0|between 1 and 2592000000",
        "pgque.dedup.ttl.ms|2592000001|between 1 and 2592000000",
        "pgque.retry.max|-1|at least 0",
        "pgque.retry.backoff.ms|-5|at least 0",
        "pgque.batch.max.records|0|at least 1",
        "pgque.schema.install|always|none, if_missing",
        "pgque.delivery.guarantee|twice|at_least_once, exactly_once",
        "pgque.value.envelope|schema|none, connect-json",
        "connection.url|jdbc:mysql://h/db|jdbc:postgresql:",
        "connection.pool.size|65|no more than 64",
        "connection.ssl.mode|on|verify-full",
    })
    void invalidValueNamesItsKey(String key, String value, String allowed) {
        ConfigException e = assertThrows(ConfigException.class, () -> config(key, value));
        assertTrue(e.getMessage().contains(key), e.getMessage());
        assertTrue(e.getMessage().contains(allowed), e.getMessage());
    }

    @Test
    void crossFieldErrorsAlsoStopTheConstructor() {
        ConfigException e = assertThrows(ConfigException.class, () -> config("pgque.dedup.key", "${key}"));
        assertTrue(e.getMessage().contains("pgque.dedup.ttl.ms is required when pgque.dedup.key is set"), e.getMessage());
    }

    @Test
    void theEnvelopeWithAConverterThatParsesTheValueStopsTheConstructor() {
        ConfigException e = assertThrows(ConfigException.class, () -> config("pgque.value.envelope", "connect-json",
                "value.converter", "org.apache.kafka.connect.json.JsonConverter"));
        assertTrue(e.getMessage().contains("pgque.value.envelope=connect-json reads the envelope's JSON text"), e.getMessage());
        assertEquals(ValueEnvelope.CONNECT_JSON, config("pgque.value.envelope", "connect-json",
                "value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter").valueEnvelope());
        assertEquals(ValueEnvelope.NONE, config().valueEnvelope());
    }

    @Test
    void toStringHidesSecrets() {
        PgQueSinkConfig config = config("connection.ssl.key.password", "tls-key-secret");
        String text = config.toString();
        assertFalse(text.contains("s3cret-pw"), text);
        assertFalse(text.contains("tls-key-secret"), text);
        assertTrue(text.contains("connection.password=[hidden]"), text);
        assertFalse(config.connection().toString().contains("s3cret-pw"));
        assertFalse(config.values().toString().contains("s3cret-pw"));
    }

    @Test
    void docsListTheAllowedValues() {
        String doc = PgQueSinkConfig.configDef().configKeys().get("pgque.payload.format").documentation;
        assertTrue(doc.contains("Allowed values: json, string, base64"), doc);
        String extras = PgQueSinkConfig.configDef().configKeys().get("pgque.extra3").documentation;
        assertTrue(extras.contains(PlaceholderKind.HEADERS.syntax()), extras);
    }
}

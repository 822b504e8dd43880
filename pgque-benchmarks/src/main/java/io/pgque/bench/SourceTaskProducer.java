/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A KafkaProducer set up as a Connect worker sets up a source task's (Kafka 4.x {@code
 * Worker.baseProducerConfigs}: {@code acks=all}, one request in flight, no idempotence,
 * unbounded delivery timeout and blocking), plus {@code linger.ms=0} and {@code batch.size=131072}
 * as {@code config/pgque-source.json} ships them. The raw loops use it, so a difference to the
 * connector is the connector and the framework, not the producer.
 */
final class SourceTaskProducer {

    private SourceTaskProducer() {
    }

    static KafkaProducer<String, String> create(String bootstrapServers) {
        return create(bootstrapServers, "", Map.of());
    }

    /**
     * @param clientId  the producer's client id (its metrics' name), or empty for Kafka's own
     * @param overrides producer settings beyond Connect's, as a connector's {@code producer.override.*}
     */
    static KafkaProducer<String, String> create(String bootstrapServers, String clientId, Map<String, String> overrides) {
        return create(bootstrapServers, clientId, overrides, new StringSerializer());
    }

    /** As {@link #create(String, String, Map)}, the values written by {@code values}. */
    static <V> KafkaProducer<String, V> create(String bootstrapServers, String clientId, Map<String, String> overrides,
                                               Serializer<V> values) {
        Map<String, Object> props = new HashMap<>();
        if (!clientId.isEmpty()) {
            props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        }
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.MAX_VALUE);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, SourceBenchmark.PRODUCER_BATCH_SIZE);
        props.putAll(overrides);
        return new KafkaProducer<>(props, new StringSerializer(), values);
    }

    /**
     * The record the connector writes for an event: key, value and the six provenance headers,
     * as text (Connect's default header converter writes them so).
     */
    static <V> ProducerRecord<String, V> record(String topic, String key, V value, long eventId, String type,
                                                long batchId, int retryCount) {
        ProducerRecord<String, V> record = new ProducerRecord<>(topic, key, value);
        header(record, "pgque.event.id", eventId);
        header(record, "pgque.event.type", type);
        header(record, "pgque.batch.id", batchId);
        header(record, "pgque.slot", 0);
        header(record, "pgque.epoch", 1);
        header(record, "pgque.retry.count", retryCount);
        return record;
    }

    private static void header(ProducerRecord<String, ?> record, String name, Object value) {
        if (value != null) {
            record.headers().add(name, String.valueOf(value).getBytes(StandardCharsets.UTF_8));
        }
    }
}

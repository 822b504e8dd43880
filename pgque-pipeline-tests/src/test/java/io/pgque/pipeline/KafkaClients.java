/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * Kafka clients for any broker, given its bootstrap servers: the suite's checks talk to the
 * embedded broker and to a broker in a container the same way.
 */
final class KafkaClients {

    private KafkaClients() {
    }

    static KafkaProducer<byte[], byte[]> producer(String bootstrapServers, Map<String, Object> overrides) {
        Map<String, Object> props = new HashMap<>(overrides);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return new KafkaProducer<>(props);
    }

    static KafkaConsumer<byte[], byte[]> consumer(String bootstrapServers, Map<String, Object> overrides) {
        Map<String, Object> props = new HashMap<>(overrides);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return new KafkaConsumer<>(props);
    }

    static Admin admin(String bootstrapServers) {
        return Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    /** Creates topics with one replica each (the stacks run one broker). */
    static void createTopics(String bootstrapServers, Map<String, Integer> partitionsByTopic) {
        List<NewTopic> topics = partitionsByTopic.entrySet().stream()
                .map(e -> new NewTopic(e.getKey(), e.getValue(), (short) 1))
                .toList();
        try (Admin admin = admin(bootstrapServers)) {
            admin.createTopics(topics).all().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topics " + partitionsByTopic.keySet(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

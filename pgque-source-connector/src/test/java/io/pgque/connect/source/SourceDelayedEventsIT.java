/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.DelayedEvent;
import io.pgque.client.Event;
import io.pgque.testing.PluginMetricsJmx;
import io.pgque.testsupport.Await;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Events sent with a due time (pgque.send_events_at) through a source connector that ticks the
 * queue itself: each reaches Kafka no earlier than due, each key's events in order; and while
 * they are held, the source's lag gauges do not count them.
 */
class SourceDelayedEventsIT {

    private static final int KEYS = 6;
    private static final int SLOTS = 2;
    private static ConnectFixture fixture;
    private static EmbeddedConnectCluster connect;
    private static QueueFixture pg;

    @BeforeAll
    static void start() {
        fixture = new ConnectFixture("source-delayed", 1, Map.of());
        connect = fixture.connect;
        pg = fixture.pg;
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void heldEventsComeOutWhenDuePerKeyInOrderAndAreNoLagWhileHeld() throws Exception {
        String name = "delayed-out";
        String queue = "delayed_out";
        pg.createQueue(queue);
        connect.kafka().createTopic(queue, SLOTS);
        Map<String, String> config = fixture.connectorConfig(name, queue, SLOTS, 1);
        config.put("pgque.ticker.enabled", "true");
        config.put("pgque.ticker.interval.ms", "200");
        connect.configureConnector(name, config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 1, name + " did not start");

        // Per key: seq 0 at once, 1..3 held, due in that order; payload "key:seq:due millis".
        Instant sent = Instant.now();
        Instant firstDue = sent.plusSeconds(10).truncatedTo(ChronoUnit.MILLIS);
        List<DelayedEvent> events = new ArrayList<>();
        for (int seq = 0; seq < 4; seq++) {
            for (int k = 0; k < KEYS; k++) {
                String key = "key-" + k;
                Instant due = seq == 0 ? null : firstDue.plusMillis(300L * (seq - 1) + 10L * k);
                events.add(new DelayedEvent(Event.of("order", key + ":" + seq + ":" + (due == null ? 0 : due.toEpochMilli()))
                        .withPartitionKey(key), due));
            }
        }
        pg.pgque.producer().sendBatchAt(queue, events);

        // While held: the gauges have been sampled (every 5 s) after the send, and count nothing.
        Await.until("a sample of the gauges after the send", Duration.ofSeconds(30),
                () -> Instant.now().isAfter(sent.plusSeconds(6)));
        assertEquals(List.of(0.0, 0.0), List.copyOf(PluginMetricsJmx.values(name, "slot-pending-events").values()),
                "pending events of each slot, sampled");
        assertEquals(List.of(0.0), List.copyOf(PluginMetricsJmx.values(name, "queue-unticked-events").values()),
                "unticked events of the queue, sampled");
        assertTrue(Instant.now().isBefore(firstDue), "the gauges were read while the events were held");

        Map<String, List<Integer>> seqs = new HashMap<>();
        Map<String, Integer> partitionOfKey = new HashMap<>();
        int read = 0;
        Map<String, Object> props = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "it-" + queue,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        long deadline = System.nanoTime() + ConnectFixture.DELIVERY_TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = connect.kafka().createConsumerAndSubscribeTo(props, queue)) {
            while (read < events.size()) {
                assertTrue(System.nanoTime() < deadline, "only " + read + " of " + events.size() + " records arrived");
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    long polled = System.currentTimeMillis();
                    String key = new String(record.key(), StandardCharsets.UTF_8);
                    String[] parts = new String(record.value(), StandardCharsets.UTF_8).split(":");
                    long due = Long.parseLong(parts[2]);
                    assertFalse(record.timestamp() < due, record + " entered the queue before it was due");
                    assertFalse(polled < due, record + " reached Kafka before it was due");
                    Integer previous = partitionOfKey.putIfAbsent(key, record.partition());
                    assertTrue(previous == null || previous == record.partition(), key + " in two partitions");
                    seqs.computeIfAbsent(key, x -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
                    read++;
                }
            }
        }
        for (int k = 0; k < KEYS; k++) {
            assertEquals(List.of(0, 1, 2, 3), seqs.get("key-" + k), "key-" + k + " in order, each once");
        }
        connect.deleteConnector(name);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.client.Message;
import io.pgque.testing.PluginMetricsJmx;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import static io.pgque.connect.sink.SinkCluster.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Records that ask to wait, through a real Connect worker: {@code pgque.delay.header} names a due
 * time (epoch milliseconds or ISO-8601), {@code pgque.delay.ms} holds records a fixed time after
 * their timestamp; held events reach the queue no earlier than due; a header that names no time
 * goes to the dead letter topic with its coordinates and reason; in exactly-once mode the held
 * events commit with the stored offsets, and a task restart writes none of them twice.
 */
class SinkDelayIT {

    private static final String HEADER = "deliver-at";
    private static final String REASON_HEADER = "__connect.errors.exception.message";
    private static SinkCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = new SinkCluster("sink-delay", 1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aHeaderHoldsEachRecordUntilItsTimeAndOneThatNamesNoTimeIsADeadLetter() throws Exception {
        String name = "delay_header";
        String dlq = name + "_dlq";
        cluster.connect.kafka().createTopic(name, 1);
        cluster.createQueue(name);
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        Map<String, String> config = SinkCluster.withDeadLetters(cluster.sinkConfig(name, name, name), dlq);
        config.put("pgque.delay.header", HEADER);
        cluster.start(config, 1);

        Instant due = Instant.now().plusSeconds(8).truncatedTo(ChronoUnit.MILLIS);
        cluster.send(name, 0, "k", "before", Map.of());                                          // offset 0
        cluster.send(name, 0, "k", "millis", Map.of(HEADER, Long.toString(due.toEpochMilli())));  // offset 1
        cluster.send(name, 0, "k2", "iso", Map.of(HEADER, due.toString()));                      // offset 2
        cluster.send(name, 0, "k", "garbage", Map.of(HEADER, "tomorrow"));                       // offset 3
        cluster.send(name, 0, "k", "past", Map.of(HEADER, "2001-01-01T00:00:00Z"));              // offset 4
        cluster.send(name, 0, "k", "after", Map.of());                                           // offset 5
        cluster.flush();

        List<Message> first = reader.awaitMessage(m -> "after".equals(m.payload()), TIMEOUT, "the records due at once");
        assertEquals(List.of("before", "past", "after"), first.stream().map(Message::payload).toList());
        assertEquals(2, held(name), "the two records of the header's time are held, in the put that wrote the others");
        assertTrue(Instant.now().isBefore(due), "this check ran before the due time (raise the margin if it did not)");

        List<Message> all = reader.awaitMessage(m -> "iso".equals(m.payload()), TIMEOUT, "the held records");
        List<Message> later = all.subList(3, all.size());
        assertEquals(List.of("millis", "iso"), later.stream().map(Message::payload).toList(), "in offset order, as due");
        for (Message m : later) {
            assertFalse(m.createdAt().isBefore(due), m + " entered the queue before " + due);
        }
        assertEquals("k", later.get(0).partitionKey());
        assertEquals(0, held(name));

        ConsumerRecords<byte[], byte[]> dead = cluster.connect.kafka().consume(1, TIMEOUT.toMillis(), dlq);
        ConsumerRecord<byte[], byte[]> record = dead.iterator().next();
        Map<String, String> headers = SinkCluster.headers(record);
        assertEquals("3", headers.get("__connect.errors.offset"));
        assertEquals(name, headers.get("__connect.errors.topic"));
        assertEquals("0", headers.get("__connect.errors.partition"));
        String reason = headers.get(REASON_HEADER);
        assertTrue(reason.contains("offset=3") && reason.contains("delay header 'deliver-at'")
                && reason.contains("epoch milliseconds"), reason);
        SinkCluster.await(() -> PluginMetricsJmx.sum(name, "events-held-total") == 2, "2 events counted as held");
        cluster.connect.deleteConnector(name);
    }

    /**
     * A retry topic: every record waits pgque.delay.ms after its timestamp, so a record that has
     * already waited in Kafka (an old timestamp) is not held again for the whole delay.
     */
    @Test
    void aFixedDelayCountsFromEachRecordsTimestamp() throws Exception {
        String name = "delay_fixed";
        cluster.connect.kafka().createTopic(name, 1);
        cluster.createQueue(name);
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("pgque.delay.ms", "4000");
        cluster.start(config, 1);

        long now = System.currentTimeMillis();
        cluster.send(name, 0, now - 600_000, SinkCluster.bytes("k"), SinkCluster.bytes("waited-long-enough"), Map.of());
        cluster.send(name, 0, now, SinkCluster.bytes("k"), SinkCluster.bytes("fresh"), Map.of());
        cluster.flush();

        List<Message> first = reader.awaitCount(1, TIMEOUT);
        assertEquals("waited-long-enough", first.get(0).payload());
        List<Message> all = reader.awaitCount(2, TIMEOUT);
        assertEquals(List.of("waited-long-enough", "fresh"), all.stream().map(Message::payload).toList());
        assertFalse(all.get(1).createdAt().isBefore(Instant.ofEpochMilli(now + 4000)), "held 4 s after its timestamp");
        cluster.connect.deleteConnector(name);
    }

    /**
     * exactly_once with held events: the events a put holds and the next offsets it stores commit
     * in one transaction, so once the stored offsets reach the end of the input every record is
     * held (none is due yet); a task restarted meanwhile writes none twice; once due, every
     * record arrives once, each key's in offset order.
     */
    @Test
    void exactlyOnceCommitsHeldEventsWithTheStoredOffsets() throws Exception {
        String name = "delay_eos";
        int partitions = 2;
        cluster.connect.kafka().createTopic(name, partitions);
        cluster.createQueue(name);
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("pgque.delivery.guarantee", "exactly_once");
        config.put("pgque.delay.header", HEADER);
        config.put("consumer.override.max.poll.records", "20");
        cluster.start(config, 1);

        // Nothing ticks the queue before the reader below does, so the events stay held whatever the time.
        Instant due = Instant.now().plusSeconds(5).truncatedTo(ChronoUnit.MILLIS);
        KeyedStream stream = new KeyedStream(cluster, name, 6, Map.of(HEADER, due.toString()));
        stream.send(120);
        cluster.connect.restartTask(name, 0);
        cluster.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 1, "task after a restart");
        stream.send(120);

        Map<TopicPartition, Long> end = cluster.endOffsets(name, partitions);
        SinkCluster.await(() -> end.equals(cluster.storedOffsets(name)), "stored offsets to reach the end offsets " + end);
        assertEquals(240, held(name), "every record held, once, by the time its offset is stored");

        reader.awaitUntilAll(stream.sent(), TIMEOUT);
        List<Message> delivered = reader.drain(TIMEOUT);
        stream.assertExactlyOnceInOrder(delivered);
        assertTrue(delivered.stream().noneMatch(m -> m.createdAt().isBefore(due)), "none before it was due");
        assertEquals(0, held(name));
        cluster.connect.deleteConnector(name);
    }

    private static long held(String queue) {
        try (Connection c = cluster.superuser().getConnection();
             PreparedStatement ps = c.prepareStatement("select count(*) from pgque.delayed_events where de_queue_name = ?")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

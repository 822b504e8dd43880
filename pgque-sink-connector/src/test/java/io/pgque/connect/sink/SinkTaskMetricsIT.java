/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.testing.PluginMetricsJmx;
import io.pgque.testsupport.Await;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Each sink task's plugin metrics count its own work, as an operator reads them over JMX from one
 * worker running two connectors of two tasks each: not the sum of every task's, not another
 * connector's; restarting one task or deleting the other connector leaves them as they were, and
 * a deleted connector's go with it. Each task reads one partition, and each partition gets its
 * own numbers of good and bad records, so a task's counts tell whose records it counted.
 */
class SinkTaskMetricsIT {

    private static final Duration METRICS_TIMEOUT = Duration.ofSeconds(30);
    private static SinkCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void startCluster() {
        cluster = new SinkCluster("sink-task-metrics", 1);
        admin = cluster.connect.kafka().createAdminClient();
    }

    @AfterAll
    static void stopCluster() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void eachTaskCountsItsOwnWorkThroughARestartAndAnotherConnectorsDeletion() throws Exception {
        startSink("sink-a");
        send("sink-a", 0, 3, 1);
        send("sink-a", 1, 5, 2);
        Map<Integer, String> countsA = awaitCounts("sink-a", List.of("written=3 dead=1", "written=5 dead=2"));

        // A second connector's tasks start from nothing, not from the first one's counts.
        startSink("sink-b");
        awaitCounts("sink-b", List.of("written=0 dead=0", "written=0 dead=0"));
        send("sink-b", 0, 4, 0);
        send("sink-b", 1, 6, 3);
        Map<Integer, String> countsB = awaitCounts("sink-b", List.of("written=4 dead=0", "written=6 dead=3"));
        assertEquals(countsA, counts("sink-a"), "sink-a's tasks after sink-b's work");

        // With every offset committed nothing is delivered again, so only the restarted task's counts change.
        awaitCommitted("sink-a", Map.of(0, 4L, 1, 7L));
        cluster.connect.restartTask("sink-a", 0);
        countsA.put(0, "written=0 dead=0");
        awaitCounts("sink-a", countsA);
        assertEquals(countsB, counts("sink-b"), "sink-b's tasks after sink-a's task 0 restarted");

        cluster.connect.deleteConnector("sink-b");
        Await.until(() -> "sink-b's plugin MBeans to go; left: " + PluginMetricsJmx.names("sink-b"),
                SinkCluster.TIMEOUT, Await.EVERY, () -> PluginMetricsJmx.names("sink-b").isEmpty());
        assertEquals(countsA, counts("sink-a"), "sink-a's tasks after sink-b was deleted");

        cluster.connect.deleteConnector("sink-a");
        Await.until(() -> "sink-a's plugin MBeans to go; left: " + PluginMetricsJmx.names("sink-a"),
                SinkCluster.TIMEOUT, Await.EVERY, () -> PluginMetricsJmx.names("sink-a").isEmpty());
    }

    /**
     * Topic and queue {@code name}, two partitions, and a sink of two tasks on them with dead
     * letters, running with one partition per task (records sent earlier could go to either).
     */
    private static void startSink(String name) throws Exception {
        String queue = name.replace('-', '_');
        cluster.connect.kafka().createTopic(name, 2);
        cluster.createQueue(queue);
        Map<String, String> config = SinkCluster.withDeadLetters(cluster.sinkConfig(name, name, queue), name + "-dlq");
        config.put("tasks.max", "2");
        config.put("pgque.payload.format", "json");
        cluster.start(config, 2);
        Await.until(() -> name + "'s consumer group to give each task one partition", SinkCluster.TIMEOUT,
                Duration.ofMillis(200), () -> onePartitionEach(group(name)));
    }

    private static String group(String connector) {
        return "connect-" + connector;
    }

    private static boolean onePartitionEach(String group) {
        try {
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            List<MemberDescription> members = List.copyOf(description.members());
            return members.size() == 2 && members.stream().allMatch(m -> m.assignment().topicPartitions().size() == 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException notYet) {
            return false;
        }
    }

    /** {@code good} JSON records then {@code bad} unparsable ones (to the dead letter topic) to one partition. */
    private static void send(String topic, int partition, int good, int bad) {
        for (int i = 0; i < good; i++) {
            cluster.send(topic, partition, "k" + partition, "{\"good\":" + i + "}", Map.of());
        }
        for (int i = 0; i < bad; i++) {
            cluster.send(topic, partition, "k" + partition, "{not json " + i, Map.of());
        }
        cluster.flush();
    }

    /** Waits until each of the connector's tasks shows one of {@code expected} (as a whole: each once); returns them by task. */
    private static Map<Integer, String> awaitCounts(String connector, List<String> expected) {
        List<String> sorted = expected.stream().sorted().toList();
        Await.until(() -> connector + "'s tasks to count " + sorted + "; got " + counts(connector), METRICS_TIMEOUT,
                Await.EVERY, () -> sorted.equals(counts(connector).values().stream().sorted().toList()));
        return counts(connector);
    }

    private static void awaitCounts(String connector, Map<Integer, String> expected) {
        Await.until(() -> connector + "'s tasks to count " + expected + "; got " + counts(connector), METRICS_TIMEOUT,
                Await.EVERY, () -> expected.equals(counts(connector)));
    }

    /** Per task, its events written and records sent to the dead letter topic, as its MBean shows them. */
    private static Map<Integer, String> counts(String connector) {
        Map<Integer, Double> written = PluginMetricsJmx.byTask(connector, "events-written-total");
        Map<Integer, Double> dead = PluginMetricsJmx.byTask(connector, "dead-letter-records-total");
        Map<Integer, String> counts = new TreeMap<>();
        for (int task : PluginMetricsJmx.byTask(connector, "database-connected").keySet()) {
            counts.put(task, "written=" + format(written.get(task)) + " dead=" + format(dead.get(task)));
        }
        return counts;
    }

    private static String format(Double value) {
        return value == null ? "missing" : Long.toString(Math.round(value));
    }

    /** Waits until the connector's consumer group has committed {@code ends} (partition to offset). */
    private static void awaitCommitted(String connector, Map<Integer, Long> ends) {
        Await.until(() -> connector + "'s offsets committed up to " + ends, SinkCluster.TIMEOUT, Duration.ofMillis(200),
                () -> {
                    try {
                        Map<TopicPartition, OffsetAndMetadata> committed = admin
                                .listConsumerGroupOffsets(group(connector)).partitionsToOffsetAndMetadata().get();
                        return ends.entrySet().stream().allMatch(end -> {
                            OffsetAndMetadata offset = committed.get(new TopicPartition(connector, end.getKey()));
                            return offset != null && offset.offset() == end.getValue();
                        });
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new AssertionError("interrupted", e);
                    } catch (ExecutionException notYet) {
                        return false;
                    }
                });
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.testsupport.EmbeddedConnect;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * One Kafka broker and one Connect worker in this JVM, and what the benchmark asks of them:
 * topics stamped by the broker, a connector run to its tasks, the records of a topic.
 */
final class SourceKafkaSide implements AutoCloseable {
    private static final Duration END_OFFSET_CHECKS = Duration.ofMillis(250);
    private final EmbeddedConnectCluster connect;

    private SourceKafkaSide(EmbeddedConnectCluster connect) {
        this.connect = connect;
    }

    /** With {@code exactlyOnce}, the worker runs every source task in Kafka transactions. */
    static SourceKafkaSide start(boolean exactlyOnce) {
        // The cluster's status assertions log an ERROR with a stack trace on every poll that
        // finds no status yet; that is expected while a connector starts and would bury the tables.
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka.connect.util.clusters.ConnectAssertions",
                "off");
        // The transaction log on the one broker for both, so that the two differ in nothing else.
        EmbeddedConnectCluster connect = EmbeddedConnect.cluster(
                        exactlyOnce ? "pgque-source-bench-eos" : "pgque-source-bench", 1)
                .singleBrokerTransactions()
                .exactlyOnceSource(exactlyOnce)
                .start();
        return new SourceKafkaSide(connect);
    }

    String bootstrapServers() {
        return connect.kafka().bootstrapServers();
    }

    /** The broker stamps each record on append, so the broker's clock times every run alike. */
    void createTopics(List<String> topics) {
        createTopics(topics, SourceBenchmark.TOPIC_PARTITIONS);
    }

    void createTopics(List<String> topics, int partitions) {
        for (String topic : topics) {
            connect.kafka().createTopic(topic, partitions, 1, Map.of("message.timestamp.type", "LogAppendTime"));
        }
    }

    /** Frees the broker's disk of a measured topic once its span has been read. */
    void deleteTopic(String topic) {
        connect.kafka().deleteTopic(topic);
    }

    void runConnector(String name, Map<String, String> config, int tasks) throws InterruptedException {
        connect.configureConnector(name, config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, tasks, name + " did not start");
    }

    /**
     * Records per Kafka transaction of each task of connector {@code name}, as the worker (in
     * this JVM) measured them: its {@code transaction-size-avg} and {@code -max}, over the
     * metrics' sample windows (30 s each by default, so a whole drain).
     */
    static String transactionSizes(String name) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        StringBuilder out = new StringBuilder("records per transaction:");
        try {
            Set<ObjectName> tasks = new TreeSet<>(server.queryNames(
                    new ObjectName("kafka.connect:type=source-task-metrics,connector=" + name + ",task=*"), null));
            for (ObjectName task : tasks) {
                out.append(String.format(Locale.ROOT, " task %s avg %.0f, max %.0f;", task.getKeyProperty("task"),
                        (Double) server.getAttribute(task, "transaction-size-avg"),
                        (Double) server.getAttribute(task, "transaction-size-max")));
                out.append(String.format(Locale.ROOT, " poll() avg %.1f ms, max %.0f ms;",
                        (Double) server.getAttribute(task, "poll-batch-avg-time-ms"),
                        (Double) server.getAttribute(task, "poll-batch-max-time-ms")));
            }
            // Where a task's time went between its transactions: the producer's commits (each
            // waits for every record of it and the markers), against the run's wall time.
            Set<ObjectName> producers = new TreeSet<>(server.queryNames(new ObjectName(
                    "kafka.producer:type=producer-metrics,client-id=connector-producer-" + name + "-*"), null));
            for (ObjectName producer : producers) {
                String id = producer.getKeyProperty("client-id");
                out.append(String.format(Locale.ROOT, " commits of task %s %.0f ms in all;",
                        id.substring(id.lastIndexOf('-') + 1),
                        (Double) server.getAttribute(producer, "txn-commit-time-ns-total") / 1e6));
            }
        } catch (JMException e) {
            out.append(" not measured (").append(e.getMessage()).append(')');
        }
        return out.toString();
    }

    /**
     * How the producers whose client id starts with {@code clientIdPrefix} sent: records per
     * produce request, the requests' round trip and the records' wait in the accumulator. With
     * one request in flight a producer moves a request's records per round trip, whatever its
     * feeder does.
     */
    static String producerStats(String clientIdPrefix) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        StringBuilder out = new StringBuilder("producer:");
        try {
            for (ObjectName producer : new TreeSet<>(server.queryNames(new ObjectName(
                    "kafka.producer:type=producer-metrics,client-id=" + clientIdPrefix + "*"), null))) {
                out.append(String.format(Locale.ROOT, " %.1f records a request, %.0f B a batch, request round trip "
                                + "avg %.2f ms, records waited avg %.2f ms;",
                        (Double) server.getAttribute(producer, "records-per-request-avg"),
                        (Double) server.getAttribute(producer, "batch-size-avg"),
                        (Double) server.getAttribute(producer, "request-latency-avg"),
                        (Double) server.getAttribute(producer, "record-queue-time-avg")));
            }
        } catch (JMException e) {
            out.append(" not measured (").append(e.getMessage()).append(')');
        }
        return out.toString();
    }

    void removeConnector(String name, BooleanSupplier stopped) throws InterruptedException {
        connect.deleteConnector(name);
        connect.assertions().assertConnectorDoesNotExist(name, name + " was not deleted");
        SourceBenchmark.awaitCondition(name + "'s tasks to stop", stopped);
    }

    KafkaConsumer<byte[], byte[]> readerFromStart(String topic) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // Committed records only; the same as uncommitted where no producer uses transactions.
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        KafkaConsumer<byte[], byte[]> consumer = connect.kafka().createConsumer(props);
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo p : consumer.partitionsFor(topic)) {
            partitions.add(new TopicPartition(topic, p.partition()));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return consumer;
    }

    /**
     * Reads a topic's committed records from the start until {@code expected} have arrived.
     * Records are counted, not offsets: transaction markers take offsets too.
     */
    AppendSpan appendSpan(String topic, long expected) throws InterruptedException {
        return appendSpan(topic, expected, new BatchGaps());
    }

    /** As {@link #appendSpan(String, long)}, every record also counted into {@code gaps}. */
    AppendSpan appendSpan(String topic, long expected, BatchGaps gaps) throws InterruptedException {
        awaitWritten(topic, expected);
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long count = 0;
        long deadline = System.nanoTime() + SourceBenchmark.DEADLINE.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = readerFromStart(topic)) {
            while (count < expected) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("only " + count + " of " + expected + " records reached "
                            + topic + " within " + SourceBenchmark.DEADLINE.toSeconds() + " s");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    first = Math.min(first, record.timestamp());
                    last = Math.max(last, record.timestamp());
                    gaps.add(record);
                    count++;
                }
            }
        }
        return new AppendSpan(count, first, last);
    }

    /**
     * Waits, asking only for end offsets, until the topic holds {@code expected} offsets: a
     * consumer fetching the records while they are written would take CPU from the writer
     * (the bridge finishes before its topic is read, so the connector must too).
     */
    private void awaitWritten(String topic, long expected) throws InterruptedException {
        try (KafkaConsumer<byte[], byte[]> consumer = readerFromStart(topic)) {
            // Asked every 250 ms, not more often: the run is timed by the broker's append
            // stamps, so a later look changes no figure, while frequent ListOffsets requests
            // took a sixth of the JVM's samples in a profile of a 1-slot drain on two cores.
            SourceBenchmark.awaitCondition(expected + " offsets in " + topic,
                    () -> consumer.endOffsets(consumer.assignment()).values().stream()
                            .mapToLong(Long::longValue).sum() >= expected, END_OFFSET_CHECKS);
        }
    }

    @Override
    public void close() {
        connect.stop();
    }
}

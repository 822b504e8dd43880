/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.Event;
import io.pgque.connect.source.config.TaskKeys;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the tests that drive one task by hand, in place of the Connect worker, share: the task's
 * configuration and start, rounds of keyed events, polling until a batch comes, and the check
 * that each key's events came in send order.
 */
final class HandDrivenTask {

    /** Slots of every consumer in these tests. */
    static final int N = 2;

    private HandDrivenTask() {
    }

    /**
     * A task's configuration: N slots, a 1 s lease (so tests can outlive it), polls every 100 ms,
     * task 0 with {@code slots}, e.g. "0" or "0,1".
     */
    static Map<String, String> props(QueueFixture pg, String queue, String consumer, String slots) {
        Map<String, String> props = new HashMap<>();
        props.put("name", consumer);
        props.put("connection.url", pg.jdbcUrl());
        props.put("pgque.queue", queue);
        props.put("pgque.consumer", consumer);
        props.put("pgque.slots", Integer.toString(N));
        props.put("topic", "out");
        props.put("pgque.lease.ttl.ms", "1000");
        props.put("pgque.poll.interval.ms", "100");
        props.put("pgque.metrics.log.interval.ms", "0");
        props.put(TaskKeys.TASK_INDEX, "0");
        props.put(TaskKeys.TASK_SLOTS, slots);
        return props;
    }

    /** Values {@code key:from} .. {@code key:from+4} for every key, in one transaction, then a tick. */
    static void sendRound(QueueFixture pg, String queue, List<String> keys, int from) {
        List<Event> events = new ArrayList<>();
        for (int i = from; i < from + 5; i++) {
            for (String key : keys) {
                events.add(Event.of("test", key + ":" + i).withPartitionKey(key));
            }
        }
        pg.send(queue, events);
        pg.tick(queue);
    }

    /** A task started with {@code props}, in a worker context with no offsets and no plugin metrics. */
    static PgQueSourceTask start(Map<String, String> props) {
        PgQueSourceTask task = new PgQueSourceTask();
        task.initialize(new NoMetricsContext(props));
        task.start(props);
        return task;
    }

    /**
     * A task started with {@code props} in a worker context with no offsets, its plugin metrics
     * (tagged with the consumer as the connector, and the task index) kept in {@code metrics}.
     */
    static PgQueSourceTask startMetered(Map<String, String> props, Metrics metrics) {
        PgQueSourceTask task = new PgQueSourceTask();
        PluginMetrics plugin = new PluginMetricsImpl(metrics, Map.of("connector", props.get("pgque.consumer"),
                "task", props.get(TaskKeys.TASK_INDEX)));
        task.initialize(new MeteredContext(props, plugin));
        task.start(props);
        return task;
    }

    /** The value of the metric called {@code name} in {@code metrics}. */
    static double metric(Metrics metrics, String name) {
        for (Map.Entry<MetricName, KafkaMetric> entry : metrics.metrics().entrySet()) {
            if (entry.getKey().name().equals(name)) {
                return ((Number) entry.getValue().metricValue()).doubleValue();
            }
        }
        throw new AssertionError("no metric " + name);
    }

    /** Polls until the task fails, which it must within 60 s. */
    static void pollUntilFailure(PgQueSourceTask task) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            task.poll();
        }
        throw new AssertionError("the task kept polling without failing for 60 s");
    }

    /** Per key, the first delivery of values {@code key:0 .. key:values-1} follows send order, none missing. */
    static void assertFirstDeliveriesInSendOrder(List<SourceRecord> delivered, List<String> keys, int values) {
        for (String key : keys) {
            LinkedHashSet<String> firsts = new LinkedHashSet<>();
            for (SourceRecord record : delivered) {
                if (key.equals(record.key())) {
                    firsts.add((String) record.value());
                }
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < values; i++) {
                expected.add(key + ":" + i);
            }
            assertEquals(expected, new ArrayList<>(firsts), "order of key " + key);
        }
    }

    /** Polls until a batch comes; the deadline is for a loaded machine, a quiet one takes milliseconds. */
    static List<SourceRecord> pollUntilRecords(PgQueSourceTask task) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            List<SourceRecord> records = task.poll();
            if (records != null && !records.isEmpty()) {
                return records;
            }
        }
        throw new AssertionError("no records within 60 s");
    }

    /** A worker context stand-in: the task's own keys and plugin metrics, no offsets. */
    private record MeteredContext(Map<String, String> configs, PluginMetrics pluginMetrics)
            implements SourceTaskContext {
        @Override
        public OffsetStorageReader offsetStorageReader() {
            return null;
        }
    }

    /** A worker context stand-in: the task's own keys, no offsets, no plugin metrics. */
    private record NoMetricsContext(Map<String, String> configs) implements SourceTaskContext {
        @Override
        public OffsetStorageReader offsetStorageReader() {
            return null;
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return null;
        }
    }
}

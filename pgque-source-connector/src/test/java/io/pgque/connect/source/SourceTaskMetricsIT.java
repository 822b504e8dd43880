/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.Event;
import io.pgque.testing.PluginMetricsJmx;
import io.pgque.testsupport.Await;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.management.ObjectName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Each source task's plugin metrics count its own work, as an operator reads them over JMX from
 * one worker running two connectors of several tasks each: not the sum of every task's, not
 * another connector's; a task's restart or another connector's deletion leaves them as they
 * were, and a deleted connector's go with it. Every slot gets its own number of events, so a
 * task's count tells whose events it counted.
 */
class SourceTaskMetricsIT {

    private static final Duration TIMEOUT = ConnectFixture.DELIVERY_TIMEOUT;
    private static final Duration METRICS_TIMEOUT = Duration.ofSeconds(30);
    private static ConnectFixture fixture;
    private static EmbeddedConnectCluster connect;
    private static QueueFixture pg;

    @BeforeAll
    static void start() {
        fixture = new ConnectFixture("source-task-metrics", 1, Map.of());
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
    void eachTaskCountsItsOwnWorkThroughRestartsAndAnotherConnectorsDeletion() throws Exception {
        // a: 4 slots over 4 tasks, slot s gets 3 + 2s events; b: 2 slots over 2 tasks, 4 + 2s.
        startSource("metrics-a", 4);
        Map<Integer, Integer> slotOfTaskA = slotOfTask("metrics-a", 4);
        Map<Integer, Double> sentA = sendPerSlot("metrics-a", 4, 3, "first");
        awaitMetric("metrics-a", "records-acked-total", byTask(slotOfTaskA, sentA));
        awaitMetric("metrics-a", "lease-takeovers-total", each(4, 1));

        // A second connector's tasks start from nothing, not from the first one's counts.
        startSource("metrics-b", 2);
        Map<Integer, Integer> slotOfTaskB = slotOfTask("metrics-b", 2);
        awaitMetric("metrics-b", "records-acked-total", each(2, 0));
        Map<Integer, Double> sentB = sendPerSlot("metrics-b", 2, 4, "first");
        Map<Integer, Double> ackedB = byTask(slotOfTaskB, sentB);
        awaitMetric("metrics-b", "records-acked-total", ackedB);
        awaitMetric("metrics-b", "lease-takeovers-total", each(2, 1));
        Map<Integer, Double> ackedA = byTask(slotOfTaskA, sentA);
        assertMetric("metrics-a", "records-acked-total", ackedA);
        assertMetric("metrics-a", "lease-takeovers-total", each(4, 1));

        // A restarted task starts its counts over and counts its own events; the others keep theirs.
        connect.restartTask("metrics-a", 0);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("metrics-a", 4, "a's tasks after the restart");
        int restartedSlot = slotOfTask("metrics-a", 4).get(0);
        int again = 7;
        sendToSlot("metrics-a", restartedSlot, 4, again, "second");
        ackedA.put(0, (double) again);
        awaitMetric("metrics-a", "records-acked-total", ackedA);
        assertMetric("metrics-a", "lease-takeovers-total", each(4, 1));
        assertMetric("metrics-b", "records-acked-total", ackedB);

        // Deleting a connector takes its MBeans away and leaves the other connector's as they were.
        connect.deleteConnector("metrics-b");
        Await.until(() -> "metrics-b's plugin MBeans to go; left: " + PluginMetricsJmx.names("metrics-b"), TIMEOUT,
                Await.EVERY, () -> PluginMetricsJmx.names("metrics-b").isEmpty());
        assertMetric("metrics-a", "records-acked-total", ackedA);
        assertMetric("metrics-a", "lease-takeovers-total", each(4, 1));

        connect.deleteConnector("metrics-a");
        Await.until(() -> "metrics-a's plugin MBeans to go; left: " + PluginMetricsJmx.names("metrics-a"), TIMEOUT,
                Await.EVERY, () -> PluginMetricsJmx.names("metrics-a").isEmpty());
    }

    /** Queue and topic {@code name}, and a source with the ticker reading it with one task per slot, running. */
    private static void startSource(String name, int slots) throws InterruptedException {
        String queue = queue(name);
        pg.createQueue(queue);
        connect.kafka().createTopic(queue, slots);
        Map<String, String> config = fixture.connectorConfig(name, queue, slots, slots);
        config.put("pgque.ticker.enabled", "true");
        connect.configureConnector(name, config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, slots, name + " did not start");
    }

    private static String queue(String connector) {
        return connector.replace('-', '_');
    }

    /** Each task's one slot, as its slot gauges' MBeans name it. */
    private static Map<Integer, Integer> slotOfTask(String connector, int tasks) {
        Supplier<Map<Integer, Integer>> read = () -> {
            Map<Integer, Integer> slots = new TreeMap<>();
            for (ObjectName name : PluginMetricsJmx.names(connector)) {
                if (name.getKeyProperty("slot") != null) {
                    slots.put(Integer.parseInt(name.getKeyProperty("task")), Integer.parseInt(name.getKeyProperty("slot")));
                }
            }
            return slots;
        };
        Await.until(() -> connector + "'s " + tasks + " tasks each with its slot gauges; got " + read.get(), TIMEOUT,
                Await.EVERY, () -> read.get().size() == tasks);
        return read.get();
    }

    /** Sends {@code first + 2s} events to each slot s of {@code slots}; returns their counts by slot. */
    private static Map<Integer, Double> sendPerSlot(String connector, int slots, int first, String tag) {
        Map<Integer, Double> sent = new HashMap<>();
        for (int slot = 0; slot < slots; slot++) {
            int count = first + 2 * slot;
            sendToSlot(connector, slot, slots, count, tag);
            sent.put(slot, (double) count);
        }
        return sent;
    }

    private static void sendToSlot(String connector, int slot, int slots, int count, String tag) {
        List<Event> events = new ArrayList<>();
        for (String key : pg.keysOnSlot(tag + "-" + slot, slot, slots, count)) {
            events.add(Event.of("order", key).withPartitionKey(key));
        }
        pg.send(queue(connector), events);
    }

    /** Per task, the count of the slot it reads. */
    private static Map<Integer, Double> byTask(Map<Integer, Integer> slotOfTask, Map<Integer, Double> perSlot) {
        Map<Integer, Double> perTask = new TreeMap<>();
        slotOfTask.forEach((task, slot) -> perTask.put(task, perSlot.get(slot)));
        return perTask;
    }

    private static Map<Integer, Double> each(int tasks, double value) {
        Map<Integer, Double> values = new TreeMap<>();
        for (int task = 0; task < tasks; task++) {
            values.put(task, value);
        }
        return values;
    }

    /** Waits for the tasks' MBeans to show exactly {@code expected}: the events are acked before they are counted. */
    private static void awaitMetric(String connector, String metric, Map<Integer, Double> expected) {
        Await.until(() -> connector + " " + metric + " per task: expected " + expected + ", got "
                + PluginMetricsJmx.byTask(connector, metric), METRICS_TIMEOUT, Await.EVERY,
                () -> expected.equals(PluginMetricsJmx.byTask(connector, metric)));
    }

    private static void assertMetric(String connector, String metric, Map<Integer, Double> expected) {
        assertEquals(expected, PluginMetricsJmx.byTask(connector, metric), connector + " " + metric + " per task");
    }
}

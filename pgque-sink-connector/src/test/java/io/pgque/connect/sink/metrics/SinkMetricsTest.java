/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.metrics;

import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class SinkMetricsTest {

    private final Metrics registry = new Metrics();
    private final PluginMetrics plugin = new PluginMetricsImpl(registry, Map.of("connector", "c", "task", "0"));
    private final SinkMetrics metrics = new SinkMetrics(plugin);

    private double value(String name) {
        return ((Number) registry.metric(plugin.metricName(name, "", new LinkedHashMap<>())).metricValue()).doubleValue();
    }

    /** A retried transaction must not count its dedup hits twice, nor its events as written. */
    @Test
    void onlyCommittedTransactionsCountTheirEventsAndDedupHits() {
        metrics.dedupHits(2);
        metrics.transactionRolledBack();
        metrics.transientFailure(true);
        metrics.dedupHits(1);
        metrics.transactionCommitted(5);

        assertEquals(4, value("events-written-total"), "5 sent, 1 of them a dedup hit");
        assertEquals(1, value("dedup-hits-total"));
        assertEquals(1, value("transient-failures-total"));
        assertEquals(1, value("write-retries-total"));
        assertEquals(0, value("redeliveries-requested-total"));

        metrics.transientFailure(false);
        metrics.offsetsFenced();
        metrics.deadLettered();
        metrics.putCompleted(3_000_000);
        assertEquals(2, value("transient-failures-total"));
        assertEquals(1, value("redeliveries-requested-total"));
        assertEquals(1, value("offset-fencing-refusals-total"));
        assertEquals(1, value("dead-letter-records-total"));
        assertEquals(1, value("put-total"));
        assertEquals(3.0, value("put-time-max-ms"), 1e-9);
    }

    /** Held events count once their transaction commits, and are among the events written. */
    @Test
    void heldEventsCountWithTheirTransaction() {
        metrics.eventsHeld(3);
        metrics.transactionRolledBack();
        metrics.eventsHeld(2);
        metrics.transactionCommitted(4);
        assertEquals(2, value("events-held-total"));
        assertEquals(4, value("events-written-total"));
    }

    @Test
    void closeRemovesEveryMetric() {
        metrics.close();
        assertNull(registry.metric(plugin.metricName("events-written-total", "", new LinkedHashMap<>())));
        assertNull(registry.metric(plugin.metricName("put-time-avg-ms", "", new LinkedHashMap<>())));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import io.pgque.connect.sink.PgQueSinkConnector;
import io.pgque.connect.source.PgQueSourceConnector;
import io.pgque.testsupport.EmbeddedConnect;
import org.apache.kafka.connect.storage.StringConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import java.util.HashMap;
import java.util.Map;

/**
 * The pipe under test, in one Connect cluster: topic {@code in} → sink → queue → source with
 * N slots → topic {@code out}. Knows both connectors' configurations and how to change their
 * task count; the faults and the checks live elsewhere.
 */
final class Pipeline implements AutoCloseable {

    static final String IN = "in";
    static final String OUT = "out";
    static final String QUEUE = "pipe";
    static final String SINK = "pipe-sink";
    static final String SOURCE = "pipe-source";
    static final int IN_PARTITIONS = 6;
    static final int OUT_PARTITIONS = 4;

    final EmbeddedConnectCluster connect;
    private final String jdbcUrl;
    private final boolean exactlyOnce;
    private final int slots;

    /**
     * @param exactlyOnce both connectors in their exactly-once mode, on workers with exactly-once
     *                    source support
     */
    Pipeline(String name, int workers, String jdbcUrl, boolean exactlyOnce, int slots) {
        this.jdbcUrl = jdbcUrl;
        this.exactlyOnce = exactlyOnce;
        this.slots = slots;
        this.connect = cluster(name, workers, exactlyOnce);
        connect.start();
        connect.kafka().createTopic(IN, IN_PARTITIONS);
        connect.kafka().createTopic(OUT, OUT_PARTITIONS);
    }

    /** One broker and {@code workers} workers for the pipe, not started yet. */
    static EmbeddedConnectCluster cluster(String name, int workers, boolean exactlyOnce) {
        // One broker: the transaction log (exactly-once source, the workers' config topic writes)
        // must fit on it, where Kafka's defaults ask for three replicas.
        return EmbeddedConnect.cluster(name, workers)
                .singleBrokerTransactions()
                .worker(workerProps(exactlyOnce))
                .build();
    }

    /** Worker properties for the pipe, whatever runs the workers (embedded cluster or a worker beside containers). */
    static Map<String, String> workerProps(boolean exactlyOnce) {
        Map<String, String> worker = new HashMap<>();
        worker.put("plugin.discovery", "service_load");
        worker.put("offset.flush.interval.ms", "1000");
        // A departed worker's tasks are reassigned after this delay (Connect's default is 5 minutes).
        worker.put("scheduled.rebalance.max.delay.ms", "2000");
        if (exactlyOnce) {
            worker.put("exactly.once.source.support", "enabled");
        }
        return worker;
    }

    String bootstrapServers() {
        return connect.kafka().bootstrapServers();
    }

    Map<String, String> sinkConfig(int tasks) {
        return sinkConfig(jdbcUrl, exactlyOnce, tasks);
    }

    Map<String, String> sourceConfig(int tasks) {
        return sourceConfig(jdbcUrl, exactlyOnce, slots, tasks);
    }

    static Map<String, String> sinkConfig(String jdbcUrl, boolean exactlyOnce, int tasks) {
        Map<String, String> config = common(SINK, PgQueSinkConnector.class.getName(), jdbcUrl, tasks);
        config.put("topics", IN);
        config.put("pgque.payload.format", "string");
        config.put("pgque.delivery.guarantee", exactlyOnce ? "exactly_once" : "at_least_once");
        // Small puts, so faults land between them rather than after everything was written.
        config.put("consumer.override.max.poll.records", "200");
        config.put("pgque.retry.backoff.ms", "300");
        return config;
    }

    static Map<String, String> sourceConfig(String jdbcUrl, boolean exactlyOnce, int slots, int tasks) {
        Map<String, String> config = common(SOURCE, PgQueSourceConnector.class.getName(), jdbcUrl, tasks);
        config.put("topic", OUT);
        config.put("pgque.slots", Integer.toString(slots));
        config.put("pgque.ticker.enabled", "true");
        config.put("pgque.poll.interval.ms", "100");
        // A slot whose holder vanished mid-batch is free again after this long.
        config.put("pgque.lease.ttl.ms", "3000");
        if (exactlyOnce) {
            config.put("pgque.delivery.guarantee", "exactly_once");
            config.put("exactly.once.support", "required");
            config.put("transaction.boundary", "connector");
        }
        return config;
    }

    private static Map<String, String> common(String name, String connectorClass, String jdbcUrl, int tasks) {
        Map<String, String> config = new HashMap<>();
        config.put("name", name);
        config.put("connector.class", connectorClass);
        config.put("tasks.max", Integer.toString(tasks));
        config.put("connection.url", jdbcUrl);
        config.put("connection.timeout.ms", "2000");
        config.put("connection.backoff.ms", "300");
        config.put("pgque.queue", QUEUE);
        config.put("key.converter", StringConverter.class.getName());
        config.put("value.converter", StringConverter.class.getName());
        return config;
    }

    /**
     * Starts (or reconfigures) both connectors with {@code tasks} tasks each and waits until they
     * all run. The source first: it subscribes its logical consumer when it starts, and a queue
     * consumer only sees events sent after it subscribed.
     */
    void run(int tasks) throws InterruptedException {
        connect.configureConnector(SOURCE, sourceConfig(tasks));
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(SOURCE, tasks, "source tasks running");
        connect.configureConnector(SINK, sinkConfig(tasks));
        awaitRunning(tasks);
    }

    void awaitRunning(int tasks) throws InterruptedException {
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(SOURCE, tasks, "source tasks running");
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(SINK, tasks, "sink tasks running");
    }

    @Override
    public void close() {
        connect.stop();
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.testsupport;

import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * A Connect cluster in this JVM: one KRaft broker and a number of workers, which find the
 * connectors through their ServiceLoader manifests (no classpath scan). The one builder of it for
 * every suite and benchmark; each says what it needs beyond that.
 */
public final class EmbeddedConnect {

    private final String name;
    private final int workers;
    private final Map<String, String> worker = new HashMap<>();
    private final Properties broker = new Properties();

    private EmbeddedConnect(String name, int workers) {
        this.name = name;
        this.workers = workers;
        worker.put("plugin.discovery", "service_load");
    }

    /** A cluster named {@code name} of one broker and {@code workers} workers. */
    public static EmbeddedConnect cluster(String name, int workers) {
        return new EmbeddedConnect(name, workers);
    }

    /** Committing source offsets this often (Connect's default is a minute). */
    public EmbeddedConnect flushOffsetsEvery(Duration every) {
        return worker("offset.flush.interval.ms", Long.toString(every.toMillis()));
    }

    /**
     * The transaction log on the one broker, where Kafka's defaults ask for three replicas:
     * without it, transactional producers (exactly-once source tasks) cannot start.
     */
    public EmbeddedConnect singleBrokerTransactions() {
        return broker("transaction.state.log.replication.factor", "1")
                .broker("transaction.state.log.min.isr", "1");
    }

    /** Workers that run source tasks in Kafka transactions when a connector asks for exactly-once. */
    public EmbeddedConnect exactlyOnceSource(boolean enabled) {
        return enabled ? worker("exactly.once.source.support", "enabled") : this;
    }

    public EmbeddedConnect worker(String key, String value) {
        worker.put(key, value);
        return this;
    }

    public EmbeddedConnect worker(Map<String, String> props) {
        worker.putAll(props);
        return this;
    }

    public EmbeddedConnect broker(String key, String value) {
        broker.put(key, value);
        return this;
    }

    /** The cluster, not started. */
    public EmbeddedConnectCluster build() {
        return new EmbeddedConnectCluster.Builder()
                .name(name)
                .numBrokers(1)
                .brokerProps(broker)
                .numWorkers(workers)
                .workerProps(worker)
                .build();
    }

    /** The cluster, started. */
    public EmbeddedConnectCluster start() {
        EmbeddedConnectCluster cluster = build();
        cluster.start();
        return cluster;
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;

/**
 * A Connect worker in distributed mode inside this JVM: the same worker {@code connect-distributed.sh}
 * runs, with its REST API on localhost. Its state (connector configs, offsets, status) lives in
 * Kafka topics, so a restart on the same cluster finds the connectors again.
 */
public final class ConnectWorker implements AutoCloseable {

    /** Names the worker's group and internal topics, so they do not clash with other workers. */
    private static final String GROUP = "pgque-quickstart";

    private final Connect<DistributedHerder> connect;

    private ConnectWorker(Connect<DistributedHerder> connect) {
        this.connect = connect;
    }

    /**
     * Starts the worker; its REST API answers when this returns, but joining the group and reading
     * the config topic go on in the background (see {@link ConnectRestClient#awaitReady}).
     *
     * @param singleNode true when the cluster has one broker, so internal topics get one replica;
     *                   false leaves the replication factor to the cluster's default
     */
    public static ConnectWorker start(String bootstrapServers, int restPort, boolean singleNode) {
        return new ConnectWorker(new ConnectDistributed().startConnect(properties(bootstrapServers, restPort, singleNode)));
    }

    static Map<String, String> properties(String bootstrapServers, int restPort, boolean singleNode) {
        String replication = singleNode ? "1" : "-1";
        Map<String, String> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrapServers);
        p.put("group.id", GROUP);
        p.put("config.storage.topic", GROUP + "-configs");
        p.put("offset.storage.topic", GROUP + "-offsets");
        p.put("status.storage.topic", GROUP + "-status");
        p.put("config.storage.replication.factor", replication);
        p.put("offset.storage.replication.factor", replication);
        p.put("status.storage.replication.factor", replication);
        // one worker: the default 25 offset partitions only make the first start slower
        p.put("offset.storage.partitions", "1");
        p.put("status.storage.partitions", "1");
        p.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("listeners", "http://127.0.0.1:" + restPort);
        p.put("rest.advertised.host.name", "127.0.0.1");
        // the connectors ship ServiceLoader manifests; scanning the whole classpath instead costs
        // seconds and more than a gigabyte of memory
        p.put("plugin.discovery", "service_load");
        // the sink's committed offsets are the "in queue" count of the progress lines; the default
        // minute would leave that count far behind what the sink has written
        p.put("offset.flush.interval.ms", "250");
        // a lone worker that restarts after a crash must not wait minutes for its old self
        p.put("scheduled.rebalance.max.delay.ms", "0");
        // the connector files name their passwords as ${file:<file>:<key>} references
        p.put("config.providers", "file");
        p.put("config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider");
        return p;
    }

    /** The REST API's base URL, e.g. {@code http://127.0.0.1:8083/}. */
    public URI restUrl() {
        return connect.rest().advertisedUrl();
    }

    /** Stops connectors and tasks (they commit what they have), leaves the group, stops REST. */
    @Override
    public void close() {
        connect.stop();
    }
}

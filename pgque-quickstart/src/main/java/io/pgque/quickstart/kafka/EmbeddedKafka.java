/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.kafka;

import io.pgque.quickstart.RememberedPort;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;

/**
 * One Kafka node in KRaft mode, broker and controller in one, running inside this JVM from
 * Kafka's released server classes. {@code KafkaRaftServer} is internal API, which is why the
 * Kafka version is pinned in the build.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final int NODE_ID = 1;
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final String HOST = "127.0.0.1";

    private final KafkaRaftServer server;
    private final String bootstrapServers;

    private EmbeddedKafka(KafkaRaftServer server, String bootstrapServers) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Formats (first run only) and starts the node with its data under {@code dataDir}; returns
     * once the broker serves clients.
     */
    public static EmbeddedKafka start(Path dataDir) throws Exception {
        Path logDir = dataDir.resolve("kafka").toAbsolutePath();
        Files.createDirectories(logDir);
        int brokerPort = RememberedPort.in(dataDir.resolve("kafka.port"));
        int controllerPort = RememberedPort.in(dataDir.resolve("kafka-controller.port"));
        KraftStorage.formatIfNeeded(logDir, NODE_ID, CONTROLLER_LISTENER);

        KafkaRaftServer server = new KafkaRaftServer(
                KafkaConfig.fromProps(properties(logDir, brokerPort, controllerPort), false), Time.SYSTEM);
        // startup() returns once the broker has caught up with the metadata log and is serving
        server.startup();
        return new EmbeddedKafka(server, HOST + ":" + brokerPort);
    }

    private static Properties properties(Path logDir, int brokerPort, int controllerPort) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(NODE_ID));
        // a static voter set: one node that is its own quorum
        p.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("listeners", "PLAINTEXT://" + HOST + ":" + brokerPort + "," + CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + brokerPort);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir.toString());
        // one node: every internal topic can have one replica only
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        // nobody else will join the Connect worker's group; do not wait for them
        p.put("group.initial.rebalance.delay.ms", "0");
        // the demo creates its topics explicitly, with the partition counts it wants
        p.put("auto.create.topics.enable", "false");
        return p;
    }

    /** {@code host:port} for clients. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.Herder;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.FutureCallback;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

import javax.sql.DataSource;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The stack an adopter's CI with Docker runs: Kafka (the Apache Kafka image, KRaft) and
 * PostgreSQL (the official image of a given major) in containers, and a Connect worker in the
 * test JVM connected to that broker, with both connectors on its classpath as plugins (as in
 * {@link EmbeddedStack}: the worker is Connect's own distributed worker either way).
 *
 * <p>PostgreSQL's port is bound to a fixed host port, so a restart of the container (stop, then
 * start: the same data, the same URL) looks to the connectors like a real server restart.
 */
final class ContainerStack implements Stack {

    private static final Duration CONFIGURE_TIMEOUT = Duration.ofSeconds(120);

    private final KafkaContainer kafka;
    private final PostgreSQLContainer<?> postgres;
    private final int postgresPort;
    private final Connect<DistributedHerder> worker;

    /**
     * Starts both containers and the worker.
     *
     * @param postgresImage e.g. {@code postgres:17}
     * @param exactlyOnce   a worker with exactly-once source support, as the exactly-once mode needs
     */
    ContainerStack(String postgresImage, boolean exactlyOnce) throws IOException {
        this.kafka = kafka();
        kafka.start();
        this.postgresPort = freePort();
        this.postgres = new PostgreSQLContainer<>(DockerImageName.parse(postgresImage).asCompatibleSubstituteFor("postgres"))
                .withUsername("postgres")
                // The connectors' URL carries no password, as in the embedded stack.
                .withEnv("POSTGRES_HOST_AUTH_METHOD", "trust")
                .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withPortBindings(
                        new PortBinding(Ports.Binding.bindPort(postgresPort), new ExposedPort(5432))));
        postgres.start();
        this.worker = new ConnectDistributed().startConnect(workerProps(kafka.getBootstrapServers(), exactlyOnce));
    }

    /** The Apache Kafka image of the same release as the client libraries the build uses. */
    private static KafkaContainer kafka() {
        String version = System.getProperty("pgque.test.kafka.version", "4.1.1");
        return new KafkaContainer(DockerImageName.parse("apache/kafka:" + version))
                .withEnv("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1");
    }

    private static Map<String, String> workerProps(String bootstrapServers, boolean exactlyOnce) {
        String group = "pgque-containers";
        Map<String, String> p = new HashMap<>(Pipeline.workerProps(exactlyOnce));
        p.put("bootstrap.servers", bootstrapServers);
        p.put("group.id", group);
        p.put("config.storage.topic", group + "-configs");
        p.put("offset.storage.topic", group + "-offsets");
        p.put("status.storage.topic", group + "-status");
        p.put("config.storage.replication.factor", "1");
        p.put("offset.storage.replication.factor", "1");
        p.put("status.storage.replication.factor", "1");
        p.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("listeners", "http://127.0.0.1:0");
        return p;
    }

    @Override
    public String bootstrapServers() {
        return kafka.getBootstrapServers();
    }

    /** Retries while the worker is still joining its group (it refuses configs until it knows a leader). */
    @Override
    public void configureConnector(String name, Map<String, String> config) throws Exception {
        long deadline = System.nanoTime() + CONFIGURE_TIMEOUT.toNanos();
        while (true) {
            FutureCallback<Herder.Created<ConnectorInfo>> done = new FutureCallback<>();
            worker.herder().putConnectorConfig(name, config, true, done);
            try {
                done.get(30, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the worker did not accept " + name + " within " + CONFIGURE_TIMEOUT, e.getCause());
                }
                Thread.sleep(500); // polling the worker's readiness, with the deadline above
            }
        }
    }

    @Override
    public ConnectorStateInfo connectorStatus(String name) {
        try {
            return worker.herder().connectorStatus(name);
        } catch (RuntimeException notKnownYet) {
            return null;
        }
    }

    @Override
    public String createDatabase(String name) throws Exception {
        return OwnPostgres.createDatabase(postgresPort, name);
    }

    @Override
    public DataSource dataSource(String database) {
        return OwnPostgres.dataSource(postgresPort, database);
    }

    @Override
    public void restartPostgres(long downMs) throws InterruptedException {
        DockerClient docker = DockerClientFactory.instance().client();
        docker.stopContainerCmd(postgres.getContainerId()).exec();
        Thread.sleep(downMs); // the length of the outage is the fault being injected
        docker.startContainerCmd(postgres.getContainerId()).exec();
    }

    @Override
    public String describe() {
        return "containers " + kafka.getDockerImageName() + " and " + postgres.getDockerImageName() + ", in-process worker";
    }

    @Override
    public void close() {
        worker.stop();
        postgres.stop();
        kafka.stop();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

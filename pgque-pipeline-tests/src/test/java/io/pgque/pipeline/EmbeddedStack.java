/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.runtime.rest.errors.ConnectRestException;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import javax.sql.DataSource;
import java.util.Map;

/**
 * The stack every build runs: one broker (KRaft) and one Connect worker in the test JVM
 * ({@link EmbeddedConnectCluster}), beside a zonky PostgreSQL of the suite's own
 * ({@link OwnPostgres}, so it can be restarted).
 */
final class EmbeddedStack implements Stack {

    private final OwnPostgres postgres;
    private final EmbeddedConnectCluster connect;

    /** @param exactlyOnce a worker with exactly-once source support, as the exactly-once mode needs */
    EmbeddedStack(String name, OwnPostgres postgres, boolean exactlyOnce) {
        this.postgres = postgres;
        this.connect = Pipeline.cluster(name, 1, exactlyOnce);
        connect.start();
    }

    @Override
    public String bootstrapServers() {
        return connect.kafka().bootstrapServers();
    }

    @Override
    public void configureConnector(String name, Map<String, String> config) {
        connect.configureConnector(name, config);
    }

    @Override
    public ConnectorStateInfo connectorStatus(String name) {
        try {
            return connect.connectorStatus(name);
        } catch (ConnectRestException e) {
            return null;
        }
    }

    @Override
    public String createDatabase(String name) throws Exception {
        return postgres.createDatabase(name);
    }

    @Override
    public DataSource dataSource(String database) {
        return postgres.dataSource(database);
    }

    @Override
    public void restartPostgres(long downMs) throws Exception {
        postgres.restart(downMs);
    }

    @Override
    public String describe() {
        return "embedded broker and worker, zonky PostgreSQL " + System.getProperty("pgque.test.pg.version", "");
    }

    @Override
    public void close() {
        connect.stop();
    }
}

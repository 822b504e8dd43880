/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;

import javax.sql.DataSource;
import java.util.Map;

/**
 * What a scenario runs on: a Kafka broker, Connect workers with both connectors as plugins, and
 * a PostgreSQL server. One scenario, two stacks: {@link EmbeddedStack} (in the test JVM, what
 * {@code ./mvnw verify} runs everywhere) and {@link ContainerStack} (Kafka and PostgreSQL in
 * containers, {@code -Pcontainers} on a machine with Docker), so the two cannot drift.
 */
interface Stack extends AutoCloseable {

    String bootstrapServers();

    /** Creates or reconfigures a connector; returns once the workers accepted the config. */
    void configureConnector(String name, Map<String, String> config) throws Exception;

    /** The connector's status, or {@code null} while the workers do not know it yet. */
    ConnectorStateInfo connectorStatus(String name);

    /** A new database with the engine installed; returns the JDBC URL the connectors use. */
    String createDatabase(String name) throws Exception;

    /** Superuser connections to a database, opened afresh on each call (they work again after a restart). */
    DataSource dataSource(String database);

    /** Stops PostgreSQL (every session ends, committed data stays), keeps it down for {@code downMs}, starts it again. */
    void restartPostgres(long downMs) throws Exception;

    /** A short name for reports. */
    String describe();

    /** Stops what the stack started. */
    @Override
    void close();
}

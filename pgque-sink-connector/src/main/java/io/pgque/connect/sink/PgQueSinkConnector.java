/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import com.zaxxer.hikari.HikariDataSource;
import io.pgque.connect.common.pool.DataSourceFactory;
import io.pgque.connect.common.version.BuildVersion;
import io.pgque.connect.sink.config.PgQueSinkConfig;
import io.pgque.connect.sink.config.SinkConfigValidator;
import io.pgque.connect.sink.offsets.StoredOffsets;
import io.pgque.connect.sink.validate.LiveChecks;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Kafka topics into PgQue queues. The connector only checks the configuration and hands it to
 * the tasks; every task does the same work on the partitions Connect assigns it.
 */
public final class PgQueSinkConnector extends SinkConnector {

    static final Supplier<String> VERSION = BuildVersion.lazily(PgQueSinkConnector.class, "version.properties");

    private static final Logger log = LoggerFactory.getLogger(PgQueSinkConnector.class);

    private Map<String, String> props;

    @Override
    public String version() {
        return VERSION.get();
    }

    @Override
    public void start(Map<String, String> props) {
        PgQueSinkConfig config = new PgQueSinkConfig(props);
        this.props = new HashMap<>(props);
        log.info("Starting PgQue sink connector: {}, delivery {}", config.queueRouting(), config.deliveryGuarantee());
    }

    @Override
    public Class<? extends Task> taskClass() {
        return PgQueSinkTask.class;
    }

    /**
     * Every task gets the same configuration plus its index (for its pool's name); Connect
     * spreads the topic partitions among them.
     */
    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> config = new HashMap<>(props);
            config.put(PgQueSinkTask.TASK_INDEX, Integer.toString(i));
            configs.add(config);
        }
        return configs;
    }

    @Override
    public void stop() {
        log.info("Stopping PgQue sink connector");
    }

    /**
     * Connect's offsets REST API ({@code PATCH} or {@code DELETE /connectors/NAME/offsets}, with
     * the connector stopped) changes the consumer group's offsets; the exactly-once sink resumes
     * from the offsets stored in PostgreSQL instead, so the same change is made there first. A
     * request whose offsets are all null is a reset: every stored offset of the connector is
     * forgotten, also of partitions the consumer group never committed. Done for both delivery
     * guarantees, so rows left from an earlier exactly-once run can never contradict the reset.
     *
     * @throws ConnectException when the database refuses or cannot be reached; Kafka's offsets
     *         are then left as they were
     */
    @Override
    public boolean alterOffsets(Map<String, String> connectorConfig, Map<TopicPartition, Long> offsets) {
        PgQueSinkConfig config = new PgQueSinkConfig(connectorConfig);
        String name = connectorConfig.get(PgQueSinkTask.CONNECTOR_NAME);
        StoredOffsets stored = new StoredOffsets(name);
        boolean reset = offsets.values().stream().allMatch(Objects::isNull);
        try (HikariDataSource dataSource = DataSourceFactory.create(config.connection(), "pgque-sink-offsets-" + name)) {
            if (reset) {
                int forgotten = stored.reset(dataSource);
                log.info("Offsets of connector {} reset: forgot the {} partition offsets stored in PostgreSQL",
                        name, forgotten);
            } else {
                stored.alter(dataSource, offsets);
                log.info("Offsets of connector {} altered in PostgreSQL: {}", name, offsets);
            }
        } catch (RuntimeException e) {
            // WriteFailedException, or the pool failing to reach the database at all.
            throw new ConnectException("Could not " + (reset ? "reset" : "alter") + " the offsets of connector '"
                    + name + "' stored in PostgreSQL, so Kafka's were left as they are: " + e.getMessage(), e);
        }
        return true;
    }

    @Override
    public ConfigDef config() {
        return PgQueSinkConfig.configDef();
    }

    /**
     * Each key on its own (ConfigDef), then the rules across keys, then the live database (within
     * connection.timeout.ms); each error filed under the key to change.
     */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = super.validate(connectorConfigs);
        SinkConfigValidator.addTo(result, connectorConfigs);
        LiveChecks.addTo(result, connectorConfigs);
        return result;
    }
}

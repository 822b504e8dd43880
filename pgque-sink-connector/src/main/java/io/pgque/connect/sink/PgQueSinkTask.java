/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import com.zaxxer.hikari.HikariDataSource;
import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.TaskIndex;
import io.pgque.connect.common.health.DatabaseHealth;
import io.pgque.connect.common.health.DatabaseHealthMetrics;
import io.pgque.connect.common.metrics.PluginMetricsSupport;
import io.pgque.connect.common.pool.DataSourceFactory;
import io.pgque.connect.common.pool.PoolShutdown;
import io.pgque.connect.common.probe.DatabaseProbe;
import io.pgque.connect.sink.config.PgQueSinkConfig;
import io.pgque.connect.sink.convert.RecordConverter;
import io.pgque.connect.sink.delivery.AtLeastOnceDelivery;
import io.pgque.connect.sink.delivery.Delivery;
import io.pgque.connect.sink.delivery.ExactlyOnceDelivery;
import io.pgque.connect.sink.errors.BadRecordHandler;
import io.pgque.connect.sink.metrics.SinkEvents;
import io.pgque.connect.sink.metrics.SinkMetrics;
import io.pgque.connect.sink.offsets.StoredOffsets;
import io.pgque.connect.sink.write.SinkWriter;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;

/**
 * Converts the records Connect hands it into events and writes each put in one transaction. The
 * write runs on the task's writer thread while Connect polls and converts the next records; the
 * next put (and preCommit) waits for it, so at most one put is ever uncommitted and Kafka's
 * offsets never run ahead of PostgreSQL. What happens to the Kafka offsets depends on
 * {@code pgque.delivery.guarantee} (see {@link AtLeastOnceDelivery} and
 * {@link ExactlyOnceDelivery}).
 */
public final class PgQueSinkTask extends SinkTask {

    /** Set by the connector in each task's configuration; names the task's pool and sessions. */
    public static final String TASK_INDEX = TaskIndex.KEY;
    /** Connect's key for the connector's name, present in every task's configuration. */
    static final String CONNECTOR_NAME = "name";

    private static final Logger log = LoggerFactory.getLogger(PgQueSinkTask.class);
    /** How long stop() waits for the pool to close; the rest of the close goes on in the background. */
    static final Duration POOL_CLOSE_WAIT = Duration.ofSeconds(2);

    private HikariDataSource pool;
    private Delivery delivery;
    private SinkMetrics metrics;
    private SinkEvents events = SinkEvents.NONE;
    private DatabaseHealth health;
    private DatabaseHealthMetrics healthMetrics;

    @Override
    public String version() {
        return PgQueSinkConnector.VERSION.get();
    }

    @Override
    public void start(Map<String, String> props) {
        PgQueSinkConfig config = new PgQueSinkConfig(props);
        RecordConverter converter = new RecordConverter(config);
        DatabaseProbe.requireLogin(config.connection(), poolName(props));
        PluginMetrics plugin = pluginMetrics();
        if (plugin != null) {
            metrics = new SinkMetrics(plugin);
            events = metrics;
        }
        health = new DatabaseHealth(config.connection());
        healthMetrics = DatabaseHealthMetrics.register(plugin, health);
        BadRecordHandler badRecords = new BadRecordHandler(context == null ? null : context.errantRecordReporter(), events);
        this.pool = DataSourceFactory.create(config.connection(), poolName(props), health);
        SinkWriter writer = new SinkWriter(pool, config, timeoutMs -> {
            if (context != null) {
                context.timeout(timeoutMs);
            }
        }, events);
        if (config.deliveryGuarantee() == DeliveryGuarantee.EXACTLY_ONCE) {
            String connector = props.get(CONNECTOR_NAME);
            if (connector == null || connector.isBlank()) {
                pool.close();
                throw new ConfigException(EngineConfigDef.DELIVERY_GUARANTEE + "=exactly_once keys the stored offsets "
                        + "by the connector's name, but the task configuration has no '" + CONNECTOR_NAME + "'");
            }
            this.delivery = new ExactlyOnceDelivery(converter, badRecords, writer, pool, new StoredOffsets(connector),
                    context, config.connection().backoffMs(), pool.getPoolName() + "-writer", events);
        } else {
            this.delivery = new AtLeastOnceDelivery(converter, badRecords, writer, context, pool.getPoolName() + "-writer");
        }
        log.info("Started PgQue sink task {}: {}, delivery {}", pool.getPoolName(), config.queueRouting(),
                config.deliveryGuarantee());
    }

    /** Null where there are none: no context (unit tests), or a worker before Kafka 4.1. */
    private PluginMetrics pluginMetrics() {
        return PluginMetricsSupport.of(context);
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        delivery.open(partitions);
    }

    /**
     * Writes every convertible record in one transaction and reports the bad ones. Without a
     * reporter a bad record fails the task before anything of this put is written. Returns once
     * the write has started; the next call waits for it to commit. Fails the task first when the
     * database has been away longer than connection.max.outage.ms.
     */
    @Override
    public void put(Collection<SinkRecord> records) {
        health.checkOutage();
        if (records.isEmpty()) {
            delivery.put(records);
            return;
        }
        long start = System.nanoTime();
        try {
            delivery.put(records);
        } finally {
            events.putCompleted(System.nanoTime() - start);
        }
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        return delivery.preCommit(currentOffsets);
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        delivery.close(partitions);
    }

    /**
     * Returns within a few seconds even when the database hangs: the writer gets
     * {@link io.pgque.connect.sink.delivery.Delivery#STOP_GRACE}, then closing the pool (at most
     * {@link #POOL_CLOSE_WAIT}) aborts the connections still in use, which ends a write stuck on one.
     */
    @Override
    public void stop() {
        long start = System.nanoTime();
        if (delivery != null) {
            delivery.stop();
        }
        if (healthMetrics != null) {
            healthMetrics.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (pool != null) {
            PoolShutdown.close(POOL_CLOSE_WAIT, pool);
            log.info("Stopped PgQue sink task {} in {} ms", pool.getPoolName(), (System.nanoTime() - start) / 1_000_000);
        }
    }

    // pgque-sink-<connector>-<task>: the pool's name in logs and metrics, and the sessions'
    // application_name in pg_stat_activity.
    private static String poolName(Map<String, String> props) {
        return "pgque-sink-" + props.getOrDefault(CONNECTOR_NAME, "unnamed") + "-" + props.getOrDefault(TASK_INDEX, "0");
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.task;

import com.zaxxer.hikari.HikariDataSource;
import io.pgque.client.ScanSharing;
import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.common.health.DatabaseHealth;
import io.pgque.connect.common.health.DatabaseHealthMetrics;
import io.pgque.connect.common.metrics.PluginMetricsSupport;
import io.pgque.connect.common.metrics.QueueGauges;
import io.pgque.connect.common.pool.DataSourceFactory;
import io.pgque.connect.common.probe.DatabaseProbe;
import io.pgque.connect.source.config.FailurePolicy;
import io.pgque.connect.source.config.SourceConfig;
import io.pgque.connect.source.config.SourceConfigDef;
import io.pgque.connect.source.config.TaskKeys;
import io.pgque.connect.source.delivery.Delivery;
import io.pgque.connect.source.metrics.SourceMetrics;
import io.pgque.connect.source.reader.ConnectorScans;
import io.pgque.connect.source.record.KafkaPartitionChooser;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.record.RecordValues;
import io.pgque.connect.source.record.TopicRouter;
import io.pgque.connect.source.record.UnreadableEvents;
import io.pgque.connect.source.stream.StreamSettings;
import io.pgque.connect.source.ticker.TickListener;
import io.pgque.connect.source.ticker.TickReceiver;
import io.pgque.connect.source.ticker.TickerDuty;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceTaskContext;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a task holds whatever its mode: its connection pools (one for its calls, one for the
 * cursors over large batches, one the tick listener holds for good) and the database health they
 * report to, the tick listener and the ticker duty, where its Kafka transactions end, and its
 * metrics. A mode opens them, and the task closes them.
 */
public final class TaskResources {

    private static final Duration QUEUE_SAMPLE_EVERY = Duration.ofSeconds(5);

    private final SourceConfig config;
    private final Map<String, String> props;
    private final SourceTaskContext context;
    private final String connector;
    private final int task;
    private final HikariDataSource dataSource;
    private final HikariDataSource cursors;
    private final SourceMetrics metrics;
    private final Delivery delivery;
    private final DatabaseHealth health;
    private final DatabaseHealthMetrics healthMetrics;
    private QueueGauges queueGauges;
    private HikariDataSource listenerPool;
    private TickListener listener;
    private TickerDuty ticker;
    /** The connector's scan sharing in this worker while the task holds it; see {@link #scanSharing}. */
    private ConnectorScans.Hold scans;
    private boolean scansReleased;

    private TaskResources(SourceConfig config, Map<String, String> props, SourceTaskContext context,
                          int cursorConnections, List<Integer> sampledSlots) {
        this.config = config;
        this.props = props;
        this.context = context;
        this.connector = props.getOrDefault(SourceConfigDef.CONNECTOR_NAME, config.consumer());
        this.task = TaskKeys.taskIndex(props);
        // A typing error in the connection settings fails the start on its key; a database that
        // does not answer yet does not (the task retries from poll()).
        DatabaseProbe.requireLogin(config.connection(), "pgque-source-" + connector + "-" + task);
        this.health = new DatabaseHealth(config.connection());
        this.healthMetrics = DatabaseHealthMetrics.register(pluginMetrics(), health);
        this.dataSource = DataSourceFactory.create(config.connection(), "pgque-source-" + connector + "-" + task,
                health);
        // A reader streaming a batch larger than a chunk pins a connection for its cursor while it
        // streams (see BatchCursor): a pool of its own, so the cursors can never starve the acks
        // and lease renewals the streaming depends on; none is kept while none streams.
        this.cursors = DataSourceFactory.createOnDemand(config.connection(),
                "pgque-source-" + connector + "-" + task + "-cursors", cursorConnections, health);
        this.metrics = new SourceMetrics(pluginMetrics(), sampledSlots);
        this.delivery = Delivery.forTask(context, config.deliveryGuarantee() == DeliveryGuarantee.EXACTLY_ONCE);
    }

    /**
     * @param context           Connect's task context, or null (hand-driven tests)
     * @param cursorConnections most cursor connections the mode's readers may hold at once
     * @param sampledSlots      the slots whose status the metrics publish (none in cooperative mode)
     */
    public static TaskResources open(SourceConfig config, Map<String, String> props, SourceTaskContext context,
                                     int cursorConnections, List<Integer> sampledSlots) {
        return new TaskResources(config, props, context, cursorConnections, sampledSlots);
    }

    /**
     * Starts hearing the queue's ticks for {@code receiver}, the ticker duty when this task
     * carries it, and the queue's gauges. The listener holds its connection for good, hence a pool
     * of its own.
     */
    public void listen(TickReceiver receiver) {
        queueGauges = QueueGauges.start(pluginMetrics(), dataSource, config.queue(), QUEUE_SAMPLE_EVERY,
                "pgque-queue-monitor-" + connector + "-" + task);
        listenerPool = DataSourceFactory.create(config.connection(), "pgque-source-" + connector + "-" + task + "-ticks",
                health);
        listener = TickListener.start(listenerPool, config.queue(), receiver, backoff(), "pgque-ticks-" + connector
                + "-" + task);
        if (TaskKeys.runsTicker(props)) {
            ticker = TickerDuty.start(dataSource, "pgque-ticker-" + connector + "-" + task, config.tickerInterval(),
                    config.maintInterval(), config.retryInterval());
        }
    }

    /** Records built per the configuration; unreadable events go to the reader's dead letters as configured. */
    public RecordFactory records(KafkaPartitionChooser partitions) {
        UnreadableEvents.Pausing pausing = config.failurePolicy() == FailurePolicy.PAUSE
                ? new UnreadableEvents.Pausing(config.failureRetry(), metrics::eventPaused) : null;
        return new RecordFactory(new TopicRouter(config.topic()), RecordValues.of(config.valueFormat()), partitions,
                UnreadableEvents.of(props, metrics::eventDeadLettered, pausing), config.headers());
    }

    /** How the mode's stream paces its readers; {@code keepAlive}: a third of the lease TTL or dead interval. */
    public StreamSettings streamSettings(int chunkSize, boolean sendAhead) {
        return new StreamSettings(chunkSize, config.pollInterval(), backoff(), config.leaseTtl().dividedBy(3),
                sendAhead);
    }

    /** How the task's records reach Kafka: transactions, resumed positions, exactly-once or not. */
    public Delivery delivery() {
        return delivery;
    }

    public Duration backoff() {
        return Duration.ofMillis(config.connection().backoffMs());
    }

    /** Null where there are none: no context (hand-driven tests), or a worker before Kafka 4.1. */
    public PluginMetrics pluginMetrics() {
        return PluginMetricsSupport.of(context);
    }

    /** What the pools report to; fails the task once an outage outlasts connection.max.outage.ms. */
    public DatabaseHealth health() {
        return health;
    }

    public SourceConfig config() {
        return config;
    }

    public Map<String, String> props() {
        return props;
    }

    public String connector() {
        return connector;
    }

    public int task() {
        return task;
    }

    public HikariDataSource dataSource() {
        return dataSource;
    }

    public HikariDataSource cursors() {
        return cursors;
    }

    public SourceMetrics metrics() {
        return metrics;
    }

    /**
     * Where the task's read-aheads share their scans with the connector's other tasks in this
     * worker: held from the first call until the task ends its services; null after that.
     */
    public synchronized ScanSharing scanSharing() {
        if (scansReleased) {
            return null;
        }
        if (scans == null) {
            scans = ConnectorScans.hold(connector, config.connection().url());
        }
        return scans.sharing();
    }

    private synchronized void releaseScans() {
        scansReleased = true;
        if (scans != null) {
            scans.close();
        }
    }

    public boolean runsTicker() {
        return ticker != null;
    }

    /**
     * Stops the gauges that sample on threads of their own. They need no database to stop, so
     * they go first: a database that hangs cannot keep them alive after the task.
     */
    public void stopSampling() {
        if (queueGauges != null) {
            queueGauges.close();
        }
        healthMetrics.close();
    }

    /** Stops hearing ticks: nothing wakes the readers any more. */
    public void stopListening() {
        if (listener != null) {
            listener.close();
        }
    }

    /** Ends the ticker duty, the metrics and the task's hold on the scan sharing; may wait on the database. */
    public void closeServices() {
        releaseScans();
        if (ticker != null) {
            ticker.close();
        }
        metrics.close();
    }

    /** The pools, for the task to close once the rest returned or ran out of time. */
    public HikariDataSource[] pools() {
        return new HikariDataSource[] {listenerPool, cursors, dataSource};
    }

    /** A start that failed before anything listened: gives everything back at once. */
    public void closeAfterFailedStart() {
        releaseScans();
        healthMetrics.close();
        metrics.close();
        cursors.close();
        dataSource.close();
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import com.zaxxer.hikari.HikariDataSource;
import io.pgque.client.PgQue;
import io.pgque.client.SlotConsumer;
import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.common.pool.DataSourceFactory;
import io.pgque.connect.source.config.KafkaPartitioner;
import io.pgque.connect.source.config.SourceConfig;
import io.pgque.connect.source.config.SourceConfigDef;
import io.pgque.connect.source.config.SourceConfigRules;
import io.pgque.connect.source.config.SourceMode;
import io.pgque.connect.source.config.TaskKeys;
import io.pgque.connect.source.coop.CoopTask;
import io.pgque.connect.source.delivery.BatchBoundary;
import io.pgque.connect.source.delivery.DeliveredPositions;
import io.pgque.connect.source.delivery.OffsetStorePositions;
import io.pgque.connect.source.metrics.SlotStatusMonitor;
import io.pgque.connect.source.metrics.SourceMetrics;
import io.pgque.connect.source.record.KafkaPartitionChooser;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.record.RecordValues;
import io.pgque.connect.source.record.TopicRouter;
import io.pgque.connect.source.record.TrackedRecord;
import io.pgque.connect.source.record.UnreadableEvents;
import io.pgque.connect.source.slot.ConsumerSetup;
import io.pgque.connect.source.slot.SlotPoller;
import io.pgque.connect.source.slot.TickListener;
import io.pgque.connect.source.slot.WorkerIds;
import io.pgque.connect.source.ticker.TickerDuty;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * One task: leases its share of the slots and turns their batches into records. The work is
 * done by {@link SlotPoller} (the lease loop), {@link TickerDuty} (when enabled; shared by all tasks) and
 * {@link SlotStatusMonitor}; this class wires them up and takes them down.
 */
public class PgQueSourceTask extends SourceTask {

    private static final Logger log = LoggerFactory.getLogger(PgQueSourceTask.class);
    /** How long stop() waits for Kafka to take the batches in flight, so they can be acked. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(2);
    private static final Duration SAMPLE_EVERY = Duration.ofSeconds(5);

    private HikariDataSource dataSource;
    private HikariDataSource listenerDataSource;
    private TickListener listener;
    private ConsumerSetup setup;
    private SlotPoller poller;
    private TickerDuty ticker;
    private SlotStatusMonitor monitor;
    private SourceMetrics metrics;
    private String workerId;
    /** Set instead of everything above in cooperative mode. */
    private CoopTask coop;

    @Override
    public String version() {
        return PgQueSourceConnector.VERSION.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SourceConfig config = new SourceConfig(props);
        SourceConfigRules.require(config);
        String connector = props.getOrDefault(SourceConfigDef.CONNECTOR_NAME, config.consumer());
        if (config.mode() == SourceMode.COOPERATIVE) {
            coop = CoopTask.start(config, props, connector, context);
            return;
        }
        int task = TaskKeys.taskIndex(props);
        List<Integer> slots = TaskKeys.slots(props);
        workerId = WorkerIds.next(connector, task);

        dataSource = DataSourceFactory.create(config.connection(), "pgque-source-" + connector + "-" + task);
        PgQue pgque = PgQue.using(dataSource);
        setup = new ConsumerSetup(dataSource, config.schemaInstall(), config.queue(), config.consumer(), config.slots(),
                Duration.ofMillis(config.connection().backoffMs()));
        SlotConsumer consumer = pgque.slotConsumer(config.queue(), config.consumer(), config.slots(), workerId);
        metrics = new SourceMetrics(pluginMetrics(), slots);
        boolean exactlyOnce = config.deliveryGuarantee() == DeliveryGuarantee.EXACTLY_ONCE;
        DeliveredPositions positions = exactlyOnce
                ? new OffsetStorePositions(context.offsetStorageReader(), config.queue(), config.consumer())
                : DeliveredPositions.NONE;
        // A transaction context comes with transaction.boundary=connector, whatever our own guarantee:
        // the worker then commits only where the task says, so the task must say it for every batch.
        BatchBoundary boundary = BatchBoundary.of(context == null ? null : context.transactionContext());
        UnreadableEvents unreadable = UnreadableEvents.of(props, consumer::deadLetter, metrics::eventDeadLettered);
        poller = new SlotPoller(consumer, slots, records(config, unreadable), config.leaseTtl(), config.pollInterval(),
                config.batchPageSize(), Duration.ofMillis(config.connection().backoffMs()), metrics, positions,
                boundary);
        try {
            setup.attemptNow();
        } catch (RuntimeException e) {
            metrics.close();
            dataSource.close();
            throw e;
        }
        // A pool of its own: the listener holds its connection for good.
        listenerDataSource = DataSourceFactory.create(config.connection(),
                "pgque-source-" + connector + "-" + task + "-ticks");
        listener = TickListener.start(listenerDataSource, config.queue(), poller::tickArrived,
                Duration.ofMillis(config.connection().backoffMs()), "pgque-ticks-" + connector + "-" + task);
        if (TaskKeys.runsTicker(props)) {
            ticker = TickerDuty.start(dataSource, "pgque-ticker-" + connector + "-" + task, config.tickerInterval(),
                    config.maintInterval(), config.retryInterval());
        }
        monitor = SlotStatusMonitor.start(pgque, config.queue(), config.consumer(), config.slots(),
                new HashSet<>(slots), metrics, "pgque-monitor-" + connector + "-" + task, SAMPLE_EVERY,
                config.metricsLogInterval());
        log.info("Task {} of connector {} reads slots {} of consumer {} ({} slots) on queue {} as worker {}, {}{}",
                task, connector, slots, config.consumer(), config.slots(), config.queue(), workerId,
                exactlyOnce ? "exactly-once" : "at-least-once", ticker != null ? ", and shares the ticker duty" : "");
    }

    private static RecordFactory records(SourceConfig config, UnreadableEvents unreadable) {
        KafkaPartitionChooser partitions = config.partitioner() == KafkaPartitioner.SLOT
                ? KafkaPartitionChooser.bySlot(config.kafkaPartitions().getAsInt())
                : KafkaPartitionChooser.byKey();
        return new RecordFactory(config.queue(), config.consumer(), new TopicRouter(config.topic()),
                RecordValues.of(config.valueFormat()), partitions, unreadable);
    }

    private PluginMetrics pluginMetrics() {
        return context == null ? null : context.pluginMetrics();
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (coop != null) {
            return coop.poll();
        }
        if (!setup.ready()) {
            return null;
        }
        return poller.poll();
    }

    /**
     * Runs on the producer's callback thread: only counts the record towards its batch. The last
     * record of a batch wakes the poll thread, which Connect keeps waiting inside poll() between
     * batches, and that thread acks the batch and opens the slot's next one at once; this thread
     * never waits for the database. A null {@code metadata} means Connect dropped the record on
     * purpose (a filter, or a tolerated conversion error): the record is done as far as the batch
     * is concerned.
     */
    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        if (record instanceof TrackedRecord) {
            ((TrackedRecord) record).ticket().delivered();
        }
    }

    @Override
    public void stop() {
        if (coop != null) {
            coop.stop(STOP_GRACE);
            return;
        }
        if (setup != null) {
            setup.stop();
        }
        if (listener != null) {
            listener.close();
        }
        if (listenerDataSource != null) {
            listenerDataSource.close();
        }
        if (poller != null) {
            poller.stop();
            poller.close(STOP_GRACE);
        }
        if (ticker != null) {
            ticker.close();
        }
        if (monitor != null) {
            monitor.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (dataSource != null) {
            dataSource.close();
        }
        log.info("Worker {} stopped", workerId);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.coop;

import com.zaxxer.hikari.HikariDataSource;
import io.pgque.client.CoopConsumer;
import io.pgque.client.PgQue;
import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.common.health.DatabaseHealth;
import io.pgque.connect.common.pool.DataSourceFactory;
import io.pgque.connect.source.config.SourceConfig;
import io.pgque.connect.source.config.TaskKeys;
import io.pgque.connect.source.delivery.BatchBoundary;
import io.pgque.connect.source.metrics.SourceMetrics;
import io.pgque.connect.source.offsets.DeliveredPosition;
import io.pgque.connect.source.offsets.OffsetStorePositions;
import io.pgque.connect.source.offsets.SourceOffsets;
import io.pgque.connect.source.record.KafkaPartitionChooser;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.record.RecordValues;
import io.pgque.connect.source.record.TopicRouter;
import io.pgque.connect.source.record.UnreadableEvents;
import io.pgque.connect.source.slot.TickListener;
import io.pgque.connect.source.ticker.TickerDuty;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A source task in cooperative mode: one worker of the connector's cooperative consumer, named
 * after the task, woken by the queue's ticks, plus the ticker duty when the task carries it. The task class delegates to
 * this whole; records are acknowledged through the same {@code TrackedRecord} tickets as in
 * ordered mode.
 */
public final class CoopTask {

    private static final Logger log = LoggerFactory.getLogger(CoopTask.class);

    private final HikariDataSource dataSource;
    private final HikariDataSource cursorDataSource;
    private final HikariDataSource listenerDataSource;
    private final TickListener listener;
    private final CoopPoller poller;
    private final TickerDuty ticker;
    private final SourceMetrics metrics;
    private final String worker;
    /** Registers the worker; run by the first poll that finds the database, then null. */
    private Runnable setUp;

    private CoopTask(HikariDataSource dataSource, HikariDataSource cursorDataSource,
                     HikariDataSource listenerDataSource, TickListener listener, CoopPoller poller, TickerDuty ticker,
                     SourceMetrics metrics, String worker, Runnable setUp) {
        this.setUp = setUp;
        this.dataSource = dataSource;
        this.cursorDataSource = cursorDataSource;
        this.listenerDataSource = listenerDataSource;
        this.listener = listener;
        this.poller = poller;
        this.ticker = ticker;
        this.metrics = metrics;
        this.worker = worker;
    }

    /**
     * @param context Connect's task context, or null (hand-driven tests)
     * @param plugin  the task's plugin metrics, or null where there are none
     * @param health  what the task's pools report to, or null
     */
    public static CoopTask start(SourceConfig config, Map<String, String> props, String connector,
                                 SourceTaskContext context, PluginMetrics plugin, DatabaseHealth health) {
        int task = TaskKeys.taskIndex(props);
        String worker = CoopTasks.workerName(task);
        HikariDataSource dataSource = DataSourceFactory.create(config.connection(),
                "pgque-source-" + connector + "-" + task, health);
        boolean exactlyOnce = config.deliveryGuarantee() == DeliveryGuarantee.EXACTLY_ONCE;
        // Registering needs the database, so it waits for the first poll: a task started while
        // PostgreSQL is away starts all the same and retries from poll() (as in ordered mode).
        Runnable setUp = () -> {
            CoopSetup.ensure(dataSource, config.schemaInstall(), config.queue(), config.consumer(), worker,
                    config.connection().attempts(), Duration.ofMillis(config.connection().backoffMs()));
            if (task == 0 && TaskKeys.taskCount(props).isPresent()) {
                try {
                    RemovedWorkers.forget(PgQue.using(dataSource), config.queue(), config.consumer(),
                            TaskKeys.taskCount(props).getAsInt(), exactlyOnce ? null : config.leaseTtl());
                } catch (RuntimeException e) {
                    // Tidying only: an idle worker left registered holds nothing back.
                    log.warn("Could not look for workers of removed tasks of {} on queue {}: {}", config.consumer(),
                            config.queue(), e.getMessage());
                }
            }
        };
        CoopConsumer consumer = PgQue.using(dataSource).coopConsumer(config.queue(), config.consumer(), worker);
        // Taking over a silent sibling's batch gives it a new id, so whether Kafka already holds it
        // cannot be told from the offsets: exactly-once waits for the sibling's own restart instead.
        if (!exactlyOnce) {
            consumer = consumer.withDeadInterval(config.leaseTtl());
        }
        SourceMetrics metrics = new SourceMetrics(plugin, List.of());
        Supplier<Optional<DeliveredPosition>> delivered = exactlyOnce
                ? lastDelivered(context, SourceOffsets.memberPartition(config.queue(), config.consumer(), worker))
                : Optional::empty;
        BatchBoundary boundary = BatchBoundary.of(context == null ? null : context.transactionContext(), exactlyOnce);
        CoopConsumer reader = consumer;
        UnreadableEvents unreadable = UnreadableEvents.of(props,
                (slot, msgId, reason) -> reader.deadLetter(msgId, reason), metrics::eventDeadLettered);
        // The cursor over the rest of a batch larger than one chunk pins a connection while it streams:
        // a pool of its own (one batch per task, so one connection), never starving acks and touches.
        HikariDataSource cursorDataSource = DataSourceFactory.createOnDemand(config.connection(),
                "pgque-source-" + connector + "-" + task + "-cursors", 1, health);
        RecordFactory records = new RecordFactory(config.queue(), config.consumer(), new TopicRouter(config.topic()),
                RecordValues.of(config.valueFormat()), KafkaPartitionChooser.byKey(), unreadable, config.headers());
        // A third of the dead interval leaves two more chances before a sibling may take the batch.
        CoopPoller poller = new CoopPoller(consumer, records, config.leaseTtl().dividedBy(3), config.pollInterval(),
                config.cooperativeBatchMaxEvents(), cursorDataSource, Duration.ofMillis(config.connection().backoffMs()), metrics,
                delivered, boundary);
        // As in ordered mode: a worker waiting for a batch reads as soon as the queue ticks; the
        // listener holds its connection for good, hence a pool of its own.
        HikariDataSource listenerDataSource = DataSourceFactory.create(config.connection(),
                "pgque-source-" + connector + "-" + task + "-ticks", health);
        TickListener listener = TickListener.start(listenerDataSource, config.queue(), poller,
                Duration.ofMillis(config.connection().backoffMs()), "pgque-ticks-" + connector + "-" + task);
        TickerDuty ticker = TaskKeys.runsTicker(props)
                ? TickerDuty.start(dataSource, "pgque-ticker-" + connector + "-" + task, config.tickerInterval(),
                config.maintInterval(), config.retryInterval())
                : null;
        log.info("Task {} of connector {} is worker {} of cooperative consumer {} on queue {}, {}{}", task, connector,
                worker, config.consumer(), config.queue(), exactlyOnce ? "exactly-once"
                        : "at-least-once, taking over a sibling's batch after " + config.leaseTtl().toMillis()
                        + " ms of silence", ticker != null ? ", and shares the ticker duty" : "");
        return new CoopTask(dataSource, cursorDataSource, listenerDataSource, listener, poller, ticker, metrics,
                worker, setUp);
    }

    private static Supplier<Optional<DeliveredPosition>> lastDelivered(SourceTaskContext context,
                                                                      Map<String, Object> partition) {
        return () -> OffsetStorePositions.parse(context.offsetStorageReader().offset(partition));
    }

    public List<SourceRecord> poll() throws InterruptedException {
        if (setUp != null) {
            setUp.run();
            setUp = null;
        }
        return poller.poll();
    }

    /** Makes a running poll() return at once; stop() follows from Connect. Any thread. */
    public void wakeUp() {
        poller.stop();
    }

    /**
     * Gives the batch back and ends the ticker duty; may wait on the database. The pool stays
     * open: the caller closes {@link #pools()}, with a bounded wait.
     */
    public void stop(Duration grace) {
        listener.close();
        listenerDataSource.close();
        poller.close(grace);
        if (ticker != null) {
            ticker.close();
        }
        metrics.close();
    }

    /** The task's pools, for the caller to close once {@link #stop} returned or ran out of time. */
    public HikariDataSource[] pools() {
        return new HikariDataSource[] {dataSource, cursorDataSource};
    }

    /** The worker's name in the cooperative consumer. */
    public String worker() {
        return worker;
    }
}

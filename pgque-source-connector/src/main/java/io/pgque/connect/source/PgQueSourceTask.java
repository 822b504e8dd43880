/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import com.zaxxer.hikari.HikariDataSource;
import io.pgque.client.PgQue;
import io.pgque.client.SlotConsumer;
import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.common.health.DatabaseHealth;
import io.pgque.connect.common.health.DatabaseHealthMetrics;
import io.pgque.connect.common.metrics.PluginMetricsSupport;
import io.pgque.connect.common.metrics.QueueGauges;
import io.pgque.connect.common.pool.DataSourceFactory;
import io.pgque.connect.common.pool.PoolShutdown;
import io.pgque.connect.common.probe.DatabaseProbe;
import io.pgque.connect.source.config.KafkaPartitioner;
import io.pgque.connect.source.config.SourceConfig;
import io.pgque.connect.source.config.SourceConfigDef;
import io.pgque.connect.source.config.SourceConfigRules;
import io.pgque.connect.source.config.SourceMode;
import io.pgque.connect.source.config.TaskKeys;
import io.pgque.connect.source.coop.CoopTask;
import io.pgque.connect.source.delivery.BatchBoundary;
import io.pgque.connect.source.metrics.SlotStatusMonitor;
import io.pgque.connect.source.metrics.SourceMetrics;
import io.pgque.connect.source.offsets.DeliveredPositions;
import io.pgque.connect.source.offsets.OffsetStorePositions;
import io.pgque.connect.source.record.KafkaPartitionChooser;
import io.pgque.connect.source.record.RecordFactory;
import io.pgque.connect.source.record.RecordValues;
import io.pgque.connect.source.record.TopicRouter;
import io.pgque.connect.source.record.TrackedRecord;
import io.pgque.connect.source.record.UnreadableEvents;
import io.pgque.connect.source.resize.PolledSlotSet;
import io.pgque.connect.source.resize.ResizeMetrics;
import io.pgque.connect.source.resize.SlotSetReader;
import io.pgque.connect.source.resize.SlotSetSwitch;
import io.pgque.connect.source.slot.ConsumerSetup;
import io.pgque.connect.source.slot.ReadAheadSettings;
import io.pgque.connect.source.slot.SlotPoller;
import io.pgque.connect.source.slot.TickListener;
import io.pgque.connect.source.slot.WorkerIds;
import io.pgque.connect.source.ticker.TickerDuty;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.errors.RetriableException;
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
 * {@link SlotStatusMonitor}, under a {@link SlotSetSwitch} that moves them to the new slot set
 * when the consumer is resized; this class wires them up and takes them down.
 */
public class PgQueSourceTask extends SourceTask {

    private static final Logger log = LoggerFactory.getLogger(PgQueSourceTask.class);
    /** How long stop() waits for Kafka to take the batches in flight, so they can be acked. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(2);
    /** How long stop() lets the task give its slots back before it aborts the database calls. */
    private static final Duration ORDERLY_STOP = Duration.ofMillis(3_000);
    /** How long stop() waits for the pools to close; the rest goes on in the background. */
    private static final Duration POOL_CLOSE_WAIT = Duration.ofSeconds(2);
    private static final Duration SAMPLE_EVERY = Duration.ofSeconds(5);
    /** How often a task looks at a resize that is draining (a status read; completes it when ready). */
    private static final Duration RESIZE_CHECK_EVERY = Duration.ofSeconds(1);

    private HikariDataSource dataSource;
    private HikariDataSource listenerDataSource;
    private HikariDataSource cursorDataSource;
    private TickListener listener;
    private ConsumerSetup setup;
    private SlotSetSwitch poller;
    private int connectionAttempts;
    private TickerDuty ticker;
    private SourceMetrics metrics;
    private ResizeMetrics resizeMetrics;
    private String workerId;
    /** Set instead of everything above in cooperative mode. */
    private CoopTask coop;
    private DatabaseHealth health;
    private DatabaseHealthMetrics healthMetrics;
    private QueueGauges queueGauges;

    @Override
    public String version() {
        return PgQueSourceConnector.VERSION.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SourceConfig config = new SourceConfig(props);
        SourceConfigRules.require(config);
        connectionAttempts = config.connection().attempts();
        String connector = props.getOrDefault(SourceConfigDef.CONNECTOR_NAME, config.consumer());
        DatabaseProbe.requireLogin(config.connection(), "pgque-source-" + connector + "-"
                + props.getOrDefault(TaskKeys.TASK_INDEX, "0"));
        health = new DatabaseHealth(config.connection());
        healthMetrics = DatabaseHealthMetrics.register(pluginMetrics(), health);
        if (config.mode() == SourceMode.COOPERATIVE) {
            coop = CoopTask.start(config, props, connector, context, pluginMetrics(), health);
            return;
        }
        int task = TaskKeys.taskIndex(props);
        List<Integer> slots = TaskKeys.slots(props);
        workerId = WorkerIds.next(connector, task);

        dataSource = DataSourceFactory.create(config.connection(), "pgque-source-" + connector + "-" + task, health);
        PgQue pgque = PgQue.using(dataSource);
        // A slot streaming a batch larger than pgque.batch.max.events pins a connection for its
        // cursor while it streams (see BatchCursor), and one more for the next batch it reads
        // ahead: a pool of their own, so the cursors can never starve the acks and lease renewals
        // the streaming depends on. Two per slot of the consumer are enough even if a resize gives
        // this task more slots; none is kept while none streams.
        cursorDataSource = DataSourceFactory.createOnDemand(config.connection(),
                "pgque-source-" + connector + "-" + task + "-cursors", 2 * config.slots(), health);
        setup = new ConsumerSetup(dataSource, config.schemaInstall(), config.queue(), config.consumer(), config.slots(),
                config.connection().attempts(), Duration.ofMillis(config.connection().backoffMs()));
        boolean exactlyOnce = config.deliveryGuarantee() == DeliveryGuarantee.EXACTLY_ONCE;
        DeliveredPositions positions = exactlyOnce
                ? new OffsetStorePositions(context.offsetStorageReader(), config.queue(), config.consumer())
                : DeliveredPositions.NONE;
        // A transaction context comes with transaction.boundary=connector, whatever our own guarantee:
        // the worker then commits only where the task says, so the task must say it for every poll.
        BatchBoundary boundary = BatchBoundary.of(context == null ? null : context.transactionContext(), exactlyOnce);
        if (exactlyOnce && !boundary.drawnByTask()) {
            log.info("Connector {} runs exactly-once with transaction.boundary other than 'connector': the worker ends a "
                    + "transaction after every poll(), so each poll returns a whole transaction at once; with "
                    + "transaction.boundary=connector the task hands it over a chunk per poll, which keeps Kafka busier",
                    connector);
        }
        metrics = new SourceMetrics(pluginMetrics(), slots);
        resizeMetrics = new ResizeMetrics(pluginMetrics());
        // The slot set to read, and a new one after a resize (see SlotSetSwitch): N and the slots
        // vary, and so does the consumer an unreadable event is dead-lettered through.
        SlotSetReader.Factory sets = (n, setSlots) -> {
            metrics.keepSamplesOf(setSlots);
            SlotConsumer plain = pgque.slotConsumer(config.queue(), config.consumer(), n, workerId);
            // The engine's window counts events of the whole queue; a slot holds about 1/N of them.
            long window = config.batchCatchUpMaxEvents(n);
            SlotConsumer consumer = window > 0 ? plain.catchingUp(window * n) : plain;
            UnreadableEvents unreadable = UnreadableEvents.of(props, consumer::deadLetter, metrics::eventDeadLettered);
            SlotPoller setPoller = new SlotPoller(consumer, setSlots, records(config, unreadable), config.leaseTtl(),
                    config.pollInterval(), config.batchMaxEvents(n), cursorDataSource,
                    Duration.ofMillis(config.connection().backoffMs()),
                    metrics, positions, boundary, readAhead(config));
            SlotStatusMonitor setMonitor = SlotStatusMonitor.start(pgque, config.queue(), config.consumer(), n,
                    new HashSet<>(setSlots), metrics, "pgque-monitor-" + connector + "-" + task, SAMPLE_EVERY,
                    config.metricsLogInterval());
            return new PolledSlotSet(consumer, setPoller, setMonitor);
        };
        // Opens its first set on the first poll after the setup: which set is in force is the
        // database's to say, and start() must not need the database.
        poller = new SlotSetSwitch(pgque.slotResize(config.queue(), config.consumer()), config.slots(), slots, task,
                TaskKeys.taskCount(props), sets, resizeMetrics, RESIZE_CHECK_EVERY);
        try {
            setup.attemptNow();
        } catch (RuntimeException e) {
            resizeMetrics.close();
            metrics.close();
            cursorDataSource.close();
            dataSource.close();
            throw e;
        }
        queueGauges = QueueGauges.start(pluginMetrics(), dataSource, config.queue(), SAMPLE_EVERY,
                "pgque-queue-monitor-" + connector + "-" + task);
        // A pool of its own: the listener holds its connection for good.
        listenerDataSource = DataSourceFactory.create(config.connection(),
                "pgque-source-" + connector + "-" + task + "-ticks", health);
        listener = TickListener.start(listenerDataSource, config.queue(), poller,
                Duration.ofMillis(config.connection().backoffMs()), "pgque-ticks-" + connector + "-" + task);
        if (TaskKeys.runsTicker(props)) {
            ticker = TickerDuty.start(dataSource, "pgque-ticker-" + connector + "-" + task, config.tickerInterval(),
                    config.maintInterval(), config.retryInterval());
        }
        log.info("Task {} of connector {} reads slots {} of consumer {} ({} slots) on queue {} as worker {}, {}{}",
                task, connector, slots, config.consumer(), config.slots(), config.queue(), workerId,
                exactlyOnce ? "exactly-once" : "at-least-once", ticker != null ? ", and shares the ticker duty" : "");
    }

    /** One spare cursor connection per slot of the consumer for batches read ahead, as the pool is sized. */
    private static ReadAheadSettings readAhead(SourceConfig config) {
        return config.batchReadAhead()
                ? new ReadAheadSettings(config.slots(), SlotPoller.READ_AHEAD_PAGE_CHUNKS, config.batchSendAhead())
                : ReadAheadSettings.OFF;
    }

    private static RecordFactory records(SourceConfig config, UnreadableEvents unreadable) {
        KafkaPartitionChooser partitions = config.partitioner() == KafkaPartitioner.SLOT
                ? KafkaPartitionChooser.bySlot(config.kafkaPartitions().getAsInt())
                : KafkaPartitionChooser.byKey();
        return new RecordFactory(config.queue(), config.consumer(), new TopicRouter(config.topic()),
                RecordValues.of(config.valueFormat()), partitions, unreadable, config.headers());
    }

    /** Null where there are none: no context (unit tests), or a worker before Kafka 4.1. */
    private PluginMetrics pluginMetrics() {
        return PluginMetricsSupport.of(context);
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        health.checkOutage();
        if (coop != null) {
            return withConnectionAttempts(coop::poll);
        }
        if (!setup.ready()) {
            return null;
        }
        return withConnectionAttempts(poller::poll);
    }

    @FunctionalInterface
    private interface Poll {
        List<SourceRecord> poll() throws InterruptedException;
    }

    /**
     * The pollers wait connection.backoff.ms after a transient failure, then report it; the
     * worker hears of it after connection.attempts of them in a row, as a sink task's does.
     */
    private List<SourceRecord> withConnectionAttempts(Poll poll) throws InterruptedException {
        for (int failures = 1; ; failures++) {
            try {
                return poll.poll();
            } catch (RetriableException e) {
                if (failures >= connectionAttempts) {
                    throw e;
                }
            }
        }
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

    /**
     * Returns within about {@link #ORDERLY_STOP} plus {@link #POOL_CLOSE_WAIT} even when the
     * database hangs. Giving the slots back (acks, releases) and ending the listener, ticker and
     * monitor takes database calls, so it runs on a thread of its own and gets {@link #ORDERLY_STOP};
     * then the pools are closed, which aborts any call still stuck on a connection. A slot not
     * released that way keeps its lease until the TTL runs out, and its batch is read again by
     * the next owner.
     */
    @Override
    public void stop() {
        long start = System.nanoTime();
        if (setup != null) {
            setup.stop();
        }
        if (poller != null) {
            poller.stop();
        }
        if (coop != null) {
            coop.wakeUp();
        }
        // Needing no database, these go first: nothing the database does can keep them alive.
        if (queueGauges != null) {
            queueGauges.close();
        }
        if (healthMetrics != null) {
            healthMetrics.close();
        }
        String worker = coop != null ? coop.worker() : workerId;
        Thread orderly = new Thread(this::stopInOrder, "pgque-stop-" + worker);
        orderly.setDaemon(true);
        orderly.start();
        try {
            orderly.join(ORDERLY_STOP.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (orderly.isAlive()) {
            log.warn("Worker {} did not give its slots back within {} ms (the database does not answer); aborting its "
                    + "connections, its leases run out on their own", worker, ORDERLY_STOP.toMillis());
        }
        PoolShutdown.close(POOL_CLOSE_WAIT, coop != null ? coop.pools()
                : new HikariDataSource[] {listenerDataSource, cursorDataSource, dataSource});
        log.info("Worker {} stopped in {} ms", worker, (System.nanoTime() - start) / 1_000_000);
    }

    private void stopInOrder() {
        if (coop != null) {
            coop.stop(STOP_GRACE);
            return;
        }
        if (listener != null) {
            listener.close();
        }
        if (poller != null) {
            poller.close(STOP_GRACE);
        }
        if (ticker != null) {
            ticker.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (resizeMetrics != null) {
            resizeMetrics.close();
        }
    }
}

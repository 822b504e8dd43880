/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ordered;

import io.pgque.client.PgQue;
import io.pgque.client.SlotConsumer;
import io.pgque.connect.source.config.FailurePolicy;
import io.pgque.connect.source.config.KafkaPartitioner;
import io.pgque.connect.source.config.SourceConfig;
import io.pgque.connect.source.config.TaskKeys;
import io.pgque.connect.source.delivery.Delivery;
import io.pgque.connect.source.metrics.SlotStatusMonitor;
import io.pgque.connect.source.reader.ReadAheadSettings;
import io.pgque.connect.source.record.KafkaPartitionChooser;
import io.pgque.connect.source.resize.PolledSlotSet;
import io.pgque.connect.source.resize.ResizeMetrics;
import io.pgque.connect.source.resize.ResizeProgress;
import io.pgque.connect.source.resize.SlotSetReader;
import io.pgque.connect.source.resize.SlotSetSwitch;
import io.pgque.connect.source.stream.BatchStream;
import io.pgque.connect.source.task.SetupLoop;
import io.pgque.connect.source.task.TaskMode;
import io.pgque.connect.source.task.TaskResources;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * A task in ordered mode: leases its share of the partitioned consumer's slots and streams their
 * batches ({@link SlotStreams}), sampled by a {@link SlotStatusMonitor}, under a
 * {@link SlotSetSwitch} that moves them to the new slot set when the consumer is resized.
 */
public final class OrderedMode implements TaskMode {

    private static final Logger log = LoggerFactory.getLogger(OrderedMode.class);
    private static final Duration SAMPLE_EVERY = Duration.ofSeconds(5);
    /** How often a task looks at a resize that is draining (a status read; completes it when ready). */
    private static final Duration RESIZE_CHECK_EVERY = Duration.ofSeconds(1);

    private final TaskResources resources;
    private final ConsumerSetup setup;
    private final SlotSetSwitch sets;
    private final ResizeMetrics resizeMetrics;
    private final String workerId;

    private OrderedMode(TaskResources resources, ConsumerSetup setup, SlotSetSwitch sets, ResizeMetrics resizeMetrics,
                        String workerId) {
        this.resources = resources;
        this.setup = setup;
        this.sets = sets;
        this.resizeMetrics = resizeMetrics;
        this.workerId = workerId;
    }

    /** @param context Connect's task context, or null (hand-driven tests) */
    public static OrderedMode start(SourceConfig config, Map<String, String> props, SourceTaskContext context) {
        List<Integer> slots = TaskKeys.slots(props);
        // Two cursor connections per slot of the consumer (the batch a slot streams, the one it
        // reads ahead) are enough even if a resize gives this task more slots.
        TaskResources resources = TaskResources.open(config, props, context, 2 * config.slots(), slots);
        int task = resources.task();
        String connector = resources.connector();
        String workerId = WorkerIds.next(connector, task);
        PgQue pgque = PgQue.using(resources.dataSource());
        ConsumerSetup setup = new ConsumerSetup(resources.dataSource(), config.schemaInstall(), config.queue(),
                config.consumer(), config.slots(), config.connection().attempts(), resources.backoff());
        Delivery delivery = resources.delivery();
        if (delivery.exactlyOnce() && !delivery.boundary().drawnByTask()) {
            log.info("Connector {} runs exactly-once with transaction.boundary other than 'connector': the worker ends a "
                    + "transaction after every poll(), so each poll returns a whole transaction at once; with "
                    + "transaction.boundary=connector the task hands it over a chunk per poll, which keeps Kafka busier",
                    connector);
        }
        ResizeMetrics resizeMetrics = new ResizeMetrics(resources.pluginMetrics());
        // The slot set to read, and a new one after a resize (see SlotSetSwitch): N and the slots vary.
        SlotSetReader.Factory factory = (n, setSlots) -> openSet(resources, pgque, workerId, n, setSlots);
        // Opens its first set on the first poll after the setup: which set is in force is the
        // database's to say, and start() must not need the database.
        SlotSetSwitch sets = new SlotSetSwitch(ResizeProgress.of(pgque.slotResize(config.queue(), config.consumer())),
                config.slots(), slots, task, TaskKeys.taskCount(props), factory, resizeMetrics, RESIZE_CHECK_EVERY);
        try {
            setup.attemptNow();
        } catch (RuntimeException e) {
            resizeMetrics.close();
            resources.closeAfterFailedStart();
            throw e;
        }
        resources.listen(sets);
        log.info("Task {} of connector {} reads slots {} of consumer {} ({} slots) on queue {} as worker {}, {}{}",
                task, connector, slots, config.consumer(), config.slots(), config.queue(), workerId,
                delivery.exactlyOnce() ? "exactly-once" : "at-least-once",
                resources.runsTicker() ? ", and shares the ticker duty" : "");
        return new OrderedMode(resources, setup, sets, resizeMetrics, workerId);
    }

    private static SlotSetReader openSet(TaskResources resources, PgQue pgque, String workerId, int n,
                                         List<Integer> slots) {
        SourceConfig config = resources.config();
        resources.metrics().keepSamplesOf(slots);
        SlotConsumer plain = pgque.slotConsumer(config.queue(), config.consumer(), n, workerId);
        // The engine's window counts events of the whole queue; a slot holds about 1/N of them.
        long window = config.batchCatchUpMaxEvents(n);
        SlotConsumer consumer = window > 0 ? plain.catchingUp(window * n) : plain;
        KafkaPartitionChooser partitions = config.partitioner() == KafkaPartitioner.SLOT
                ? KafkaPartitionChooser.bySlot(config.kafkaPartitions().getAsInt())
                : KafkaPartitionChooser.byKey();
        BatchStream stream = SlotStreams.open(consumer, slots, resources.records(partitions), config.leaseTtl(),
                config.pollInterval(), config.batchMaxEvents(n), resources.cursors(), resources.backoff(),
                resources.metrics(), resources.delivery(), readAhead(resources));
        SlotStatusMonitor monitor = SlotStatusMonitor.start(pgque, config.queue(), config.consumer(), n,
                new HashSet<>(slots), resources.metrics(), "pgque-monitor-" + resources.connector() + "-"
                        + resources.task(), SAMPLE_EVERY, config.metricsLogInterval(),
                config.failurePolicy() == FailurePolicy.PAUSE);
        return new PolledSlotSet(consumer, stream, monitor);
    }

    /**
     * One spare cursor connection per slot of the consumer for batches read ahead, as the pool is
     * sized; the scans serve the slots of the connector's other tasks in this worker too.
     */
    private static ReadAheadSettings readAhead(TaskResources resources) {
        SourceConfig config = resources.config();
        // A batch sent ahead is not open yet, so an event of it that fails could not pause its key.
        boolean sendAhead = config.batchSendAhead() && config.failurePolicy() != FailurePolicy.PAUSE;
        return config.batchReadAhead()
                ? new ReadAheadSettings(config.slots(), ReadAheadSettings.PAGE_CHUNKS, sendAhead,
                        resources.scanSharing())
                : ReadAheadSettings.OFF;
    }

    @Override
    public SetupLoop setup() {
        return setup;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        return sets.poll();
    }

    @Override
    public void wakeUp() {
        sets.stop();
    }

    @Override
    public void close(Duration grace) {
        sets.close(grace);
        resizeMetrics.close();
    }

    @Override
    public TaskResources resources() {
        return resources;
    }

    @Override
    public String worker() {
        return workerId;
    }
}

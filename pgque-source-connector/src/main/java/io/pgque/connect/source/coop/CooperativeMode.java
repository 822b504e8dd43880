/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.coop;

import io.pgque.client.CoopConsumer;
import io.pgque.client.PgQue;
import io.pgque.connect.source.config.SourceConfig;
import io.pgque.connect.source.config.TaskKeys;
import io.pgque.connect.source.reader.MemberReader;
import io.pgque.connect.source.record.KafkaPartitionChooser;
import io.pgque.connect.source.stream.BatchStream;
import io.pgque.connect.source.stream.HandOver;
import io.pgque.connect.source.task.SetupLoop;
import io.pgque.connect.source.task.TaskMode;
import io.pgque.connect.source.task.TaskResources;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A task in cooperative mode: one worker (member) of the connector's cooperative consumer, named
 * after the task, streaming one batch at a time, a chunk per poll and (exactly-once) a Kafka
 * transaction per chunk.
 */
public final class CooperativeMode implements TaskMode {

    private static final Logger log = LoggerFactory.getLogger(CooperativeMode.class);

    private final TaskResources resources;
    private final CoopSetup setup;
    private final BatchStream stream;
    private final String worker;

    private CooperativeMode(TaskResources resources, CoopSetup setup, BatchStream stream, String worker) {
        this.resources = resources;
        this.setup = setup;
        this.stream = stream;
        this.worker = worker;
    }

    /** @param context Connect's task context, or null (hand-driven tests) */
    public static CooperativeMode start(SourceConfig config, Map<String, String> props, SourceTaskContext context) {
        // The cursor over the rest of a batch larger than one chunk pins a connection while it
        // streams: one batch per task, so one connection.
        TaskResources resources = TaskResources.open(config, props, context, 1, List.of());
        int task = resources.task();
        String worker = CoopTasks.workerName(task);
        boolean exactlyOnce = resources.delivery().exactlyOnce();
        CoopSetup setup = new CoopSetup(resources.dataSource(), config.schemaInstall(), config.queue(),
                config.consumer(), worker, task, TaskKeys.taskCount(props), exactlyOnce ? null : config.leaseTtl(),
                config.connection().attempts(), resources.backoff());
        // As in ordered mode, one try now: with the database up, the group and this worker exist
        // before Connect reports the task RUNNING. Registered on the first poll, the group would
        // start at the newest tick then, after any event sent once the task ran and ticked before
        // that poll (a sibling's ticker duty, pg_cron): such events would never be delivered. A
        // task started while PostgreSQL is away starts all the same and registers from its polls.
        try {
            setup.attemptNow();
        } catch (RuntimeException e) {
            resources.closeAfterFailedStart();
            throw e;
        }
        CoopConsumer consumer = PgQue.using(resources.dataSource()).coopConsumer(config.queue(), config.consumer(),
                worker);
        // Taking over a silent sibling's batch gives it a new id, so whether Kafka already holds it
        // cannot be told from the offsets: exactly-once waits for the sibling's own restart instead.
        if (!exactlyOnce) {
            consumer = consumer.withDeadInterval(config.leaseTtl());
        }
        BatchStream stream = new BatchStream(List.of(new MemberReader(consumer, resources.cursors())),
                HandOver.Kind.ONE_CHUNK, resources.records(KafkaPartitionChooser.byKey()), resources.metrics(),
                resources.delivery(),
                resources.streamSettings(config.cooperativeBatchMaxEvents(), false),
                null, () -> "queue '" + config.queue() + "' as worker '" + worker + "' of cooperative consumer '"
                        + config.consumer() + "'");
        // As in ordered mode: a worker waiting for a batch reads as soon as the queue ticks.
        resources.listen(stream);
        log.info("Task {} of connector {} is worker {} of cooperative consumer {} on queue {}, {}{}", task,
                resources.connector(), worker, config.consumer(), config.queue(), exactlyOnce ? "exactly-once"
                        : "at-least-once, taking over a sibling's batch after " + config.leaseTtl().toMillis()
                        + " ms of silence", resources.runsTicker() ? ", and shares the ticker duty" : "");
        return new CooperativeMode(resources, setup, stream, worker);
    }

    @Override
    public SetupLoop setup() {
        return setup;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        return stream.poll();
    }

    @Override
    public void wakeUp() {
        stream.stop();
    }

    /**
     * Waits up to {@code grace} for Kafka to take the batch in flight and acks it if it did. A
     * batch still out stays with this worker's name: the task's next start gets it again.
     */
    @Override
    public void close(Duration grace) {
        stream.close(grace);
    }

    @Override
    public TaskResources resources() {
        return resources;
    }

    @Override
    public String worker() {
        return worker;
    }
}

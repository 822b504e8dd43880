/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.connect.source.config.TaskKeys;
import org.apache.kafka.common.metrics.Metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Tasks a test drives by hand, reading JSON values on slot 0 of {@link HandDrivenTask#N} (or
 * cooperatively), with the metrics they publish; {@link #close} stops those still running.
 */
final class MeteredTasks implements AutoCloseable {

    private final QueueFixture pg;
    private final List<PgQueSourceTask> tasks = new ArrayList<>();
    private final Metrics metrics = new Metrics();

    MeteredTasks(QueueFixture pg) {
        this.pg = pg;
    }

    /** A started task of {@code consumer}; {@code extra} overrides the defaults ({@code pgque.mode=cooperative} drops the slots). */
    PgQueSourceTask start(String queue, String consumer, Map<String, String> extra) {
        Map<String, String> props = HandDrivenTask.props(pg, queue, consumer, "0");
        props.put("pgque.value.format", "json");
        if ("cooperative".equals(extra.get("pgque.mode"))) {
            props.remove("pgque.slots");
            props.remove(TaskKeys.TASK_SLOTS);
        }
        props.putAll(extra);
        PgQueSourceTask task = HandDrivenTask.startMetered(props, metrics);
        tasks.add(task);
        return task;
    }

    /** Stops {@code task} now. */
    void stop(PgQueSourceTask task) {
        tasks.remove(task);
        task.stop();
    }

    /** The value of the tasks' metric called {@code name}. */
    double metric(String name) {
        return HandDrivenTask.metric(metrics, name);
    }

    @Override
    public void close() {
        tasks.forEach(PgQueSourceTask::stop);
        tasks.clear();
        metrics.close();
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.coop;

import io.pgque.client.ConsumerInfo;
import io.pgque.client.PgQue;
import io.pgque.client.PgQueException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.OptionalInt;

/**
 * After {@code tasks.max} was lowered, the workers of the removed tasks ({@code task-<i>} with
 * i at or above the new task count) are still members of the group. Task 0 unregisters those
 * that hold no batch, so the group lists only live workers. One that still holds a batch (Kafka
 * did not acknowledge it before its task stopped) is left as it is: in at-least-once a sibling
 * takes it over after the dead interval; in exactly-once nothing takes it over, and the log says
 * what to do.
 */
final class RemovedWorkers {

    private static final Logger log = LoggerFactory.getLogger(RemovedWorkers.class);
    private static final String NOT_NOW = "55000";

    private RemovedWorkers() {
    }

    /** @param deadInterval when siblings take a silent worker's batch over, or null (exactly-once: never) */
    static void forget(PgQue pgque, String queue, String consumer, int taskCount, Duration deadInterval) {
        String members = consumer + ".";
        for (ConsumerInfo info : pgque.queues().consumerInfo(queue)) {
            String name = info.consumerName();
            OptionalInt removedTask = name.startsWith(members)
                    ? CoopTasks.taskOf(name.substring(members.length())) : OptionalInt.empty();
            if (removedTask.isEmpty() || removedTask.getAsInt() < taskCount) {
                continue;
            }
            String worker = CoopTasks.workerName(removedTask.getAsInt());
            try {
                if (pgque.coopConsumer(queue, consumer, worker).unregister()) {
                    log.info("Unregistered worker {} of cooperative consumer {} on queue {}: its task was removed "
                            + "(tasks.max is now {})", worker, consumer, queue, taskCount);
                }
            } catch (PgQueException e) {
                if (!NOT_NOW.equals(e.sqlState())) {
                    throw e;
                }
                if (deadInterval != null) {
                    log.info("Worker {} of cooperative consumer {} on queue {} belongs to a removed task and still "
                            + "holds a batch; a remaining task takes it over after {} ms of silence", worker,
                            consumer, queue, deadInterval.toMillis());
                } else {
                    log.warn("Worker {} of cooperative consumer {} on queue {} belongs to a removed task and still "
                            + "holds a batch, which exactly-once never takes over: raise tasks.max to more than {} "
                            + "until it is delivered, or stop the connector and run select "
                            + "pgque.unregister_subconsumer('{}', '{}', '{}', 1) (its events are then retried, "
                            + "duplicates if Kafka had them)", worker, consumer, queue, removedTask.getAsInt(), queue, consumer,
                            worker);
                }
            }
        }
    }
}

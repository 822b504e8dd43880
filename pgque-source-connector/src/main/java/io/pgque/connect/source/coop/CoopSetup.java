/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.coop;

import io.pgque.client.PgQue;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.source.config.SourceConfigDef;
import io.pgque.connect.source.task.SetupLoop;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * What a cooperative task makes sure of before it reads: the cooperative consumer and this task's
 * worker exist (the first task to get here creates the group at the queue's newest tick); task 0
 * also unregisters the workers of tasks that no longer exist.
 */
final class CoopSetup extends SetupLoop {

    private static final Logger log = LoggerFactory.getLogger(CoopSetup.class);

    private final String queue;
    private final String consumer;
    private final String worker;
    private final int task;
    private final OptionalInt taskCount;
    private final Duration deadInterval;

    /**
     * @param taskCount    how many tasks the connector runs, when the configuration says
     * @param deadInterval after how long a silent sibling's batch is taken over; null: never (exactly-once)
     */
    CoopSetup(DataSource dataSource, SchemaInstall install, String queue, String consumer, String worker, int task,
              OptionalInt taskCount, Duration deadInterval, int attempts, Duration backoff) {
        super(dataSource, install, queue, attempts, backoff);
        this.queue = queue;
        this.consumer = consumer;
        this.worker = worker;
        this.task = task;
        this.taskCount = taskCount;
        this.deadInterval = deadInterval;
    }

    @Override
    protected void setUp(DataSource dataSource) {
        PgQue pgque = PgQue.using(dataSource);
        pgque.coopConsumer(queue, consumer, worker).register(false);
        log.info("Cooperative consumer {} reads queue {}", consumer, queue);
        if (task == 0 && taskCount.isPresent()) {
            try {
                RemovedWorkers.forget(pgque, queue, consumer, taskCount.getAsInt(), deadInterval);
            } catch (RuntimeException e) {
                // Tidying only: an idle worker left registered holds nothing back.
                log.warn("Could not look for workers of removed tasks of {} on queue {}: {}", consumer, queue,
                        e.getMessage());
            }
        }
    }

    @Override
    protected ConnectException refusal(RuntimeException e) {
        return new ConnectException("Cannot set up cooperative consumer '" + consumer + "' on queue '" + queue + "' ("
                + SourceConfigDef.CONSUMER + "; an existing plain consumer of that name is never converted, choose "
                + "another name): " + e.getMessage(), e);
    }

    @Override
    protected String what() {
        return "cooperative consumer '" + consumer + "' on queue '" + queue + "'";
    }
}

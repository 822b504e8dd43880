/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import io.pgque.client.PgQue;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Both connectors deployed while PostgreSQL is down: neither the connectors' start() nor the
 * tasks' may fail on the outage. Once the server is up, both run and every record of the input
 * reaches the output topic, in per-key order.
 */
class PipelineColdStartIT {

    private static final int KEYS = 20;
    private static final int PER_KEY = 25;
    private static final int SLOTS = 4;
    private static final int TASKS = 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    @Test
    void connectorsDeployedWhilePostgresIsDownRunOnceItIsUpAndMoveEveryRecord() throws Exception {
        try (OwnPostgres postgres = OwnPostgres.start()) {
            String url = postgres.createDatabase("cold_start");
            DataSource db = postgres.dataSource("cold_start");
            PgQue.using(db).queues().create(Pipeline.QUEUE);
            // The source's consumer exists from an earlier deployment. A consumer sees only the
            // events sent after it subscribed, and once the server is up the sink may write
            // before a source task gets to subscribe; the task's set-up still runs, and retries,
            // against the server that is down.
            PgQue.using(db).slotConsumer(Pipeline.QUEUE, Pipeline.SOURCE, SLOTS, "earlier").subscribe();
            postgres.stop();

            try (Pipeline pipe = new Pipeline("pipeline-cold-start", 1, url, false, SLOTS)) {
                pipe.connect.configureConnector(Pipeline.SOURCE, pipe.sourceConfig(TASKS));
                pipe.connect.configureConnector(Pipeline.SINK, pipe.sinkConfig(TASKS));
                pipe.awaitRunning(TASKS);
                KeyedInput input = new KeyedInput(pipe.bootstrapServers(), Pipeline.IN, KEYS, PER_KEY, 1_000);
                input.start();
                input.awaitDone(TIMEOUT);
                // Still down, with the input waiting: nothing may have failed in the meantime.
                assertNothingFailed(pipe, Pipeline.SOURCE);
                assertNothingFailed(pipe, Pipeline.SINK);

                postgres.startAgain();
                OutputTopic output = new OutputTopic(pipe.bootstrapServers(), Pipeline.OUT, false);
                output.awaitDistinct(input.total(), TIMEOUT);
                DeliveryCheck.atLeastOnce(output.readToEnd(TIMEOUT).byKey(), KEYS, PER_KEY);
                pipe.awaitRunning(TASKS);
            }
        }
    }

    private static void assertNothingFailed(Pipeline pipe, String connector) {
        ConnectorStateInfo status = pipe.connect.connectorStatus(connector);
        assertEquals("RUNNING", status.connector().state(), connector + ": " + status.connector().trace());
        for (ConnectorStateInfo.TaskState task : status.tasks()) {
            assertEquals("RUNNING", task.state(), connector + " task " + task.id() + ": " + task.trace());
        }
    }
}

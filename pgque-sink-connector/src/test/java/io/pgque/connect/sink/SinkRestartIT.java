/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.pgque.connect.sink.SinkCluster.TIMEOUT;

/**
 * Tasks restarted through the REST API and a worker stopped and replaced while records flow:
 * nothing is lost and first deliveries keep per-key order (duplicates are allowed).
 */
class SinkRestartIT {

    private static SinkCluster cluster;

    @BeforeAll
    static void startCluster() {
        // A stopped worker's tasks move to the other one after this delay (default 5 minutes).
        cluster = new SinkCluster("sink-restart", 2, EmbeddedPg.newDatabase("sink_restart").installEngine(),
                Map.of("scheduled.rebalance.max.delay.ms", "2000"));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void taskAndWorkerRestartsMidStreamLoseNothing() throws Exception {
        String name = "restarts";
        cluster.connect.kafka().createTopic(name, 3);
        cluster.createQueue(name);
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("tasks.max", "2");
        config.put("consumer.override.max.poll.records", "40"); // many small puts, so restarts land between them
        cluster.start(config, 2);
        KeyedStream stream = new KeyedStream(cluster, name, 9);

        stream.send(300);
        cluster.connect.restartTask(name, 0);
        cluster.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "tasks after a task restart");
        stream.send(300);

        cluster.connect.removeWorker();
        cluster.connect.assertions().assertExactlyNumWorkersAreUp(1, "one worker left");
        stream.send(300);
        cluster.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "both tasks on the last worker");

        cluster.connect.addWorker();
        cluster.connect.assertions().assertExactlyNumWorkersAreUp(2, "a worker added back");
        stream.send(300);

        reader.awaitUntilAll(stream.sent(), TIMEOUT);
        stream.assertFirstDeliveriesInOrder(reader.messages());
        cluster.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "still running");
    }
}

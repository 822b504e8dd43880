/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;

/**
 * A worker leaves the cluster while events flow: its task moves to the other worker, which
 * claims the slots the leaver gave back (or that ran out), and nothing is lost or reordered.
 */
class SourceWorkerLossIT {

    private static ConnectFixture fixture;

    @BeforeAll
    static void start() {
        // Reassign a departed worker's tasks after 1 s instead of Connect's default 5 minutes.
        fixture = new ConnectFixture("pgque-source-loss-it", 2, Map.of("scheduled.rebalance.max.delay.ms", "1000"));
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void aStoppedWorkersSlotsAreTakenOverWithoutLossOrReordering() throws Exception {
        String queue = "loss";
        fixture.pg.createQueue(queue);
        fixture.connect.kafka().createTopic(queue, 3);
        Map<String, String> config = fixture.connectorConfig("loss-src", queue, 4, 2);
        config.put("pgque.ticker.enabled", "true");
        // Short leases: a slot whose batch was still on its way when the worker left waits this long.
        config.put("pgque.lease.ttl.ms", "3000");
        fixture.connect.configureConnector("loss-src", config);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("loss-src", 2, "source did not start");

        int keys = 40;
        int perKey = 75;
        Thread producer = new Thread(() -> fixture.sendInterleaved(queue, keys, perKey, 100), "it-producer");
        producer.start();
        WorkerHandle leaver = fixture.connect.workers().iterator().next();
        fixture.connect.removeWorker(leaver);
        fixture.connect.assertions().assertExactlyNumWorkersAreUp(1, "one worker left");
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("loss-src", 2,
                "both tasks run on the remaining worker");
        producer.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());

        fixture.assertPerKeyOrder(fixture.readPerKey(queue, keys * perKey), keys, perKey);
    }
}

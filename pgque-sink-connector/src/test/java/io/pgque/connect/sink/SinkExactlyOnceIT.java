/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.testing.EmbeddedPg;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.pgque.connect.sink.SinkCluster.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code pgque.delivery.guarantee=exactly_once} through real Connect workers: a task restarted
 * through the REST API, a worker removed and another added while records flow (each a
 * rebalance that moves partitions between tasks), and the consumer group's Kafka offsets lost;
 * every record is in the queue exactly once, each key's records in offset order. And offsets
 * changed on purpose through Connect's REST API change the stored ones too.
 */
class SinkExactlyOnceIT {

    private static SinkCluster cluster;

    @BeforeAll
    static void startCluster() {
        // A stopped worker's tasks move to the other one after this delay (default 5 minutes).
        cluster = new SinkCluster("sink-eos", 2, EmbeddedPg.newDatabase("sink_eos").installEngine(),
                Map.of("scheduled.rebalance.max.delay.ms", "2000"));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void restartsAndRebalancesMidStreamWriteEveryRecordExactlyOnce() throws Exception {
        String name = "eos";
        int partitions = 3;
        cluster.connect.kafka().createTopic(name, partitions);
        cluster.createQueue(name);
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("tasks.max", "2");
        config.put("pgque.delivery.guarantee", "exactly_once");
        config.put("consumer.override.max.poll.records", "40"); // many small puts, so faults land between them
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

        // Kafka forgets the group's offsets (as when they outlive offsets.retention.minutes): the
        // worker would deliver every record again from the start. PostgreSQL still has them, and
        // the tasks resume from there.
        cluster.connect.stopConnector(name);
        cluster.connect.assertions().assertConnectorIsStopped(name, "stopped for Kafka to forget its offsets");
        deleteConsumerGroup(name);
        cluster.connect.resumeConnector(name);
        cluster.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "resumed after the reset");
        stream.send(300);

        // Once PostgreSQL's offsets reach the end of every partition, every record is handled and
        // the queue holds all that will ever be written: nothing can commit past the end.
        Map<TopicPartition, Long> end = cluster.endOffsets(name, partitions);
        SinkCluster.await(() -> end.equals(cluster.storedOffsets(name)), "stored offsets to reach the end offsets " + end);
        reader.awaitUntilAll(stream.sent(), TIMEOUT);
        stream.assertExactlyOnceInOrder(reader.drain(TIMEOUT));
        cluster.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "still running");
    }

    @Test
    void offsetsChangedThroughConnectsRestApiMoveTheStoredOnes() throws Exception {
        String name = "eos-rest";
        cluster.connect.kafka().createTopic(name, 2);
        cluster.createQueue(name);
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("tasks.max", "1");
        config.put("pgque.delivery.guarantee", "exactly_once");
        cluster.start(config, 1);
        KeyedStream stream = new KeyedStream(cluster, name, 4);
        stream.send(40);
        Map<TopicPartition, Long> end = cluster.endOffsets(name, 2);
        SinkCluster.await(() -> end.equals(cluster.storedOffsets(name)), "stored offsets to reach the end offsets " + end);
        // The events commit with their offsets: at the end offsets, all of them are in the queue.
        int written = reader.drain(TIMEOUT).size();
        assertEquals(stream.sent().size(), written);

        // PATCH: partition 0 back to offset 5. PostgreSQL holds the new offset before the task
        // runs again, so the task re-writes exactly that partition's records from 5 on.
        TopicPartition p0 = new TopicPartition(name, 0);
        cluster.connect.stopConnector(name);
        cluster.connect.assertions().assertConnectorIsStopped(name, "stopped to alter offsets");
        cluster.connect.alterConnectorOffsets(name, new ConnectorOffsets(List.of(new ConnectorOffset(
                Map.of("kafka_topic", name, "kafka_partition", 0), Map.of("kafka_offset", 5L)))));
        Map<TopicPartition, Long> altered = new HashMap<>(end);
        altered.put(p0, 5L);
        assertEquals(altered, cluster.storedOffsets(name));
        cluster.connect.resumeConnector(name);
        SinkCluster.await(() -> end.equals(cluster.storedOffsets(name)), "stored offsets back at the end offsets " + end);
        int replayed = (int) (end.get(p0) - 5);
        assertEquals(written + replayed, reader.drain(TIMEOUT).size());

        // DELETE: every stored offset forgotten; the group is gone too, so everything comes again.
        cluster.connect.stopConnector(name);
        cluster.connect.assertions().assertConnectorIsStopped(name, "stopped to reset offsets");
        cluster.connect.resetConnectorOffsets(name);
        assertEquals(Map.of(), cluster.storedOffsets(name));
        cluster.connect.resumeConnector(name);
        SinkCluster.await(() -> end.equals(cluster.storedOffsets(name)), "stored offsets at the end offsets after the reset");
        assertEquals(written + replayed + written, reader.drain(TIMEOUT).size());
    }

    /** Only an empty group can be deleted, and the stopped tasks' consumers may still be leaving. */
    private static void deleteConsumerGroup(String connector) {
        try (Admin admin = cluster.connect.kafka().createAdminClient()) {
            SinkCluster.await(() -> {
                try {
                    admin.deleteConsumerGroups(List.of("connect-" + connector)).all().get(10, TimeUnit.SECONDS);
                    return true;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof GroupNotEmptyException) {
                        return false;
                    }
                    throw new IllegalStateException(e.getCause());
                } catch (InterruptedException | TimeoutException e) {
                    throw new IllegalStateException(e);
                }
            }, "the consumer group of " + connector + " to be deleted");
        }
    }
}

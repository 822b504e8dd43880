package io.pgque.connect.sink;

import io.pgque.testing.EmbeddedPg;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

import static io.pgque.connect.sink.SinkCluster.TIMEOUT;

/**
 * {@code pgque.delivery.guarantee=exactly_once} through real Connect workers: a task restarted
 * through the REST API, a worker removed and another added while records flow (each a
 * rebalance that moves partitions between tasks), and the consumer group's Kafka offsets reset
 * to nothing; every record is in the queue exactly once, each key's records in offset order.
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

        // Kafka forgets the group's offsets: the worker would deliver every record again from
        // the start. PostgreSQL still has them, and the tasks resume from there.
        cluster.connect.stopConnector(name);
        cluster.connect.assertions().assertConnectorIsStopped(name, "stopped for an offset reset");
        cluster.connect.resetConnectorOffsets(name);
        cluster.connect.resumeConnector(name);
        cluster.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "resumed after the reset");
        stream.send(300);

        // Once PostgreSQL's offsets reach the end of every partition, every record is handled and
        // the queue holds all that will ever be written: nothing can commit past the end.
        Map<TopicPartition, Long> end = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(name, p);
            end.put(tp, cluster.connect.kafka().endOffset(tp));
        }
        SinkCluster.await(() -> end.equals(stored(name)), "stored offsets to reach the end offsets " + end);
        reader.awaitUntilAll(stream.sent(), TIMEOUT);
        stream.assertExactlyOnceInOrder(reader.drain(TIMEOUT));
        cluster.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "still running");
    }

    private static Map<TopicPartition, Long> stored(String connector) {
        Map<TopicPartition, Long> stored = new HashMap<>();
        try (Connection c = cluster.superuser().getConnection();
             PreparedStatement ps = c.prepareStatement("select topic, kafka_partition, next_offset from pgque.sink_offsets(?)")) {
            ps.setString(1, connector);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stored.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return stored;
    }
}

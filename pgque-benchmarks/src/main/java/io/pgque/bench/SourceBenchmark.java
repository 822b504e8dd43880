/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.connect.source.PgQueSourceConnector;
import io.pgque.testsupport.Await;
import org.apache.kafka.connect.storage.StringConverter;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;

/**
 * The source connector, queue to Kafka, beside a hand-written bridge measured in the same run on
 * the same database and broker: {@link SourceThroughputBenchmark} (draining a pre-loaded queue)
 * and {@link SourceLatencyBenchmark} (a steady producer). This class runs both and holds what
 * they share: the data set's shape, the connector's base configuration and the waits on it.
 */
final class SourceBenchmark {

    static final int KEYS = 1_000;
    static final int TOPIC_PARTITIONS = 8;
    static final Duration DEADLINE = Duration.ofMinutes(5);
    /** {@code producer.override.batch.size} as {@code config/pgque-source.json} ships it. */
    static final int PRODUCER_BATCH_SIZE = 131_072;

    private final BenchServer server;

    SourceBenchmark(BenchServer server) {
        this.server = server;
    }

    void run() throws Exception {
        new SourceThroughputBenchmark(server).run();
        new SourceLatencyBenchmark(server).run();
    }

    static Map<String, String> connectorConfig(String jdbcUrl, String queue, int n) {
        Map<String, String> config = new HashMap<>();
        config.put("name", queue);
        config.put("connector.class", PgQueSourceConnector.class.getName());
        config.put("tasks.max", Integer.toString(n));
        config.put("connection.url", jdbcUrl);
        config.put("pgque.queue", queue);
        config.put("pgque.slots", Integer.toString(n));
        config.put("topic", queue);
        config.put("pgque.metrics.log.interval.ms", "0");
        config.put("key.converter", StringConverter.class.getName());
        config.put("value.converter", StringConverter.class.getName());
        // As in config/pgque-source.json: a batch waits for its slowest record, so no lingering,
        // and one request in flight carries a batch per partition, so let those be large.
        config.put("producer.override.linger.ms", "0");
        config.put("producer.override.batch.size", Integer.toString(PRODUCER_BATCH_SIZE));
        return config;
    }

    /** The tasks give their slots back on stop(); all free means every task has stopped. */
    static boolean leasesReleased(Connection c, String consumer) {
        return leasedSlots(c, consumer) == 0;
    }

    static long leasedSlots(Connection c, String consumer) {
        try (PreparedStatement ps = c.prepareStatement(
                "select count(*) from pgque.partition_slot_status where consumer = ? and lease_owner is not null")) {
            ps.setString(1, consumer);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static void awaitCondition(String what, BooleanSupplier condition) throws InterruptedException {
        awaitCondition(what, condition, Duration.ofMillis(20));
    }

    /** @param every how often the condition is checked, not a guess at how long it takes */
    static void awaitCondition(String what, BooleanSupplier condition, Duration every) throws InterruptedException {
        Await.until(what, DEADLINE, every, condition);
    }

    static ScheduledExecutorService daemonScheduler(String name) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, name);
            thread.setDaemon(true);
            return thread;
        });
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.Event;
import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * PostgreSQL itself restarts while events flow: every session of the connector ends at once,
 * receives and acks fail, and the same server comes back on the same port with the same data.
 * Nothing may be lost and, counting first deliveries, per-key order must hold; duplicates may
 * appear only as a replayed suffix.
 */
class SourcePostgresRestartIT {

    private static RestartablePostgres postgres;
    private static ConnectFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        postgres = RestartablePostgres.start("pgque-restart-it");
        try (Connection c = postgres.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(EmbeddedPg.engineScript());
        }
        fixture = new ConnectFixture(new QueueFixture(postgres.dataSource(), postgres.jdbcUrl()),
                "pgque-source-restart-it", 1, Map.of());
    }

    @AfterAll
    static void stop() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void aPostgresRestartMidStreamLosesNothingAndKeepsPerKeyOrder() throws Exception {
        String queue = "restart";
        int slots = 4;
        fixture.pg.createQueue(queue);
        fixture.connect.kafka().createTopic(queue, 3);
        Map<String, String> config = fixture.connectorConfig("restart-src", queue, slots, 2);
        config.put("pgque.ticker.enabled", "true");
        config.put("connection.backoff.ms", "200");
        fixture.connect.configureConnector("restart-src", config);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("restart-src", 2,
                "source did not start");

        int keys = 40;
        int perKey = 150;
        int total = keys * perKey;
        AtomicInteger sent = new AtomicInteger();
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            try {
                produce(queue, keys, perKey, sent);
            } catch (Throwable t) {
                producerFailure.set(t);
            }
        }, "it-producer");
        producer.start();

        // Mid-stream: the connector has delivered part of what was sent, and the producer is still going.
        QueueFixture.await("a quarter of the events in Kafka", ConnectFixture.DELIVERY_TIMEOUT,
                () -> fixture.recordCount(queue) >= total / 4);
        long inKafka = fixture.recordCount(queue);
        int sentBefore = sent.get();
        postgres.restart();
        System.out.println("PostgreSQL restarted with " + sentBefore + " of " + total + " events sent and "
                + inKafka + " records in Kafka");

        producer.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());
        assertNull(producerFailure.get(), "the producer finished");
        Map<String, List<Integer>> byKey = fixture.readPerKey(queue, total);
        fixture.assertPerKeyOrder(byKey, keys, perKey);
        fixture.assertReplaysAreSuffixes(byKey);

        // The acks resumed too: every slot's cursor reaches the end of the queue.
        QueueFixture.await("every slot acked up to the end", ConnectFixture.DELIVERY_TIMEOUT, () -> {
            for (int slot = 0; slot < slots; slot++) {
                if (fixture.pg.pendingEvents(queue, "restart-src", slot) != 0) {
                    return false;
                }
            }
            return true;
        });
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("restart-src", 2,
                "the tasks survived the restart");
        fixture.connect.deleteConnector("restart-src");
    }

    /**
     * One event per key per transaction, at about 2,000 events/s, so the stream spans the restart.
     * A send that fails while the server is away is sent again once it is back; if the failed one
     * had committed after all, the copy follows right behind it, which only adds a duplicate.
     */
    private static void produce(String queue, int keys, int perKey, AtomicInteger sent) throws InterruptedException {
        for (int seq = 0; seq < perKey; seq++) {
            List<Event> events = new ArrayList<>(keys);
            for (int k = 0; k < keys; k++) {
                events.add(Event.of("order", "key-" + k + ":" + seq).withPartitionKey("key-" + k));
            }
            long deadline = System.nanoTime() + ConnectFixture.DELIVERY_TIMEOUT.toNanos();
            while (true) {
                try {
                    fixture.pg.send(queue, events);
                    break;
                } catch (RuntimeException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(100); // the server is restarting; retry at a modest pace
                }
            }
            sent.addAndGet(keys);
            Thread.sleep(20); // paces the producer (rate shaping), so the restart lands mid-stream
        }
    }
}

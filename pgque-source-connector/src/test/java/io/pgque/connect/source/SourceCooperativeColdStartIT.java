/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.Event;
import io.pgque.connect.source.config.TaskKeys;
import io.pgque.testing.EmbeddedPg;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A cooperative task started while PostgreSQL is down: start() does not need the database, the
 * polls report a retriable failure while it is away, and once it is back the task registers its
 * worker and delivers what waited. (Ordered mode: ConsumerSetupIT and PipelineColdStartIT.)
 */
class SourceCooperativeColdStartIT {

    private static RestartablePostgres postgres;
    private static QueueFixture pg;

    @BeforeAll
    static void start() throws Exception {
        postgres = RestartablePostgres.start("pgque-coop-cold-it");
        try (Connection c = postgres.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(EmbeddedPg.engineScript());
        }
        pg = new QueueFixture(postgres.dataSource(), postgres.jdbcUrl());
    }

    @AfterAll
    static void stop() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void aTaskStartedWhileTheDatabaseIsDownRegistersAndDeliversOnceItIsBack() throws Exception {
        String queue = "coop_cold";
        pg.createQueue(queue);
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            events.add(Event.of("t", "v" + i).withPartitionKey("k" + (i % 3)));
        }
        postgres.stopServer();

        Map<String, String> props = HandDrivenTask.props(pg, queue, "coop-cold", "0");
        props.remove("pgque.slots");
        props.remove(TaskKeys.TASK_SLOTS);
        props.put("pgque.mode", "cooperative");
        props.put(TaskKeys.TASK_COUNT, "1");
        props.put("connection.attempts", "2");
        props.put("connection.backoff.ms", "100");
        props.put("connection.timeout.ms", "2000");
        PgQueSourceTask task = HandDrivenTask.start(props);
        try {
            assertThrows(RetriableException.class, task::poll, "the worker hears the database is away");

            postgres.startAgain();
            List<SourceRecord> delivered = new ArrayList<>();
            // The worker registers at the queue's newest tick: events sent after that are its own.
            QueueFixture.await("the worker to register", Duration.ofSeconds(60), () -> {
                pollQuietly(task);
                return pg.pgque.queues().consumerInfo(queue).stream()
                        .anyMatch(info -> info.consumerName().startsWith("coop-cold"));
            });
            pg.send(queue, events);
            pg.tick(queue);
            QueueFixture.await("every event delivered", Duration.ofSeconds(60), () -> {
                List<SourceRecord> records = pollQuietly(task);
                if (records != null) {
                    delivered.addAll(records);
                    records.forEach(r -> task.commitRecord(r, null));
                }
                return delivered.size() >= events.size();
            });
            assertEquals(events.stream().map(Event::payload).toList(),
                    delivered.stream().map(r -> (String) r.value()).toList());
        } finally {
            task.stop();
        }
    }

    private static List<SourceRecord> pollQuietly(PgQueSourceTask task) {
        try {
            return task.poll();
        } catch (RetriableException e) {
            return null; // the pool may still be reconnecting
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}

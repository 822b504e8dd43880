/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import io.pgque.client.PgQue;
import io.pgque.client.PgQueInstaller;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 47 item 8: the engine upgraded from the last release, and its script run once more,
 * while both connectors move keyed records and an application's own transactions (producing and
 * consuming a queue of their own, each transaction held open across a pause) run beside them.
 * Nothing is lost, per-key order holds, no task fails, and no client sees an error it would not
 * simply retry.
 */
class UpgradeUnderTrafficIT {

    private static final String LAST_RELEASE = "io/pgque/engine/pgque-0.4.2.sql";
    private static final int KEYS = 60;
    private static final int PER_KEY = 50;
    private static final int RATE_PER_SECOND = 400;
    private static final int SLOTS = 4;
    private static final int TASKS = 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private static OwnPostgres postgres;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = OwnPostgres.start();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void upgradingFromTheLastReleaseUnderTrafficLosesNothingAndShowsClientsOnlyRetriableErrors() throws Exception {
        String url = postgres.createDatabase("upgrade_traffic", lastRelease());
        DataSource db = postgres.dataSource("upgrade_traffic");
        PgQue pgque = PgQue.using(db);
        assertEquals("0.4.2", pgque.operations().version());
        pgque.queues().create(Pipeline.QUEUE);
        pgque.queues().create("app_queue");

        try (EmbeddedStack stack = new EmbeddedStack("upgrade-traffic", postgres, false)) {
            String kafka = stack.bootstrapServers();
            KafkaClients.createTopics(kafka, Map.of(Pipeline.IN, Pipeline.IN_PARTITIONS, Pipeline.OUT, Pipeline.OUT_PARTITIONS));
            stack.configureConnector(Pipeline.SOURCE, Pipeline.sourceConfig(url, false, SLOTS, TASKS));
            RoundTrip.awaitRunning(stack, Pipeline.SOURCE, TASKS, TIMEOUT);
            stack.configureConnector(Pipeline.SINK, Pipeline.sinkConfig(url, false, TASKS));
            RoundTrip.awaitRunning(stack, Pipeline.SINK, TASKS, TIMEOUT);
            TaskWatch watch = new TaskWatch(stack);
            watch.start();

            KeyedInput input = new KeyedInput(kafka, Pipeline.IN, KEYS, PER_KEY, RATE_PER_SECOND);
            OutputTopic output = new OutputTopic(kafka, Pipeline.OUT, false);
            PipeState state = new PipeState(kafka, db);
            try (SqlClients app = new SqlClients(db, "app_queue")) {
                input.start();
                Waits.until(() -> input.produced() >= input.total() / 3, TIMEOUT, "a third of the input");
                long started = System.nanoTime();
                assertEquals(PgQueInstaller.bundledVersion(), new PgQueInstaller(db).install(), "upgraded");
                long upgradeMs = (System.nanoTime() - started) / 1_000_000;
                Waits.until(() -> input.produced() >= 2 * input.total() / 3, TIMEOUT, "two thirds of the input");
                new PgQueInstaller(db).install(); // and once more, the same version, as the README allows
                input.awaitDone(TIMEOUT);

                output.awaitDistinct(input.total(), TIMEOUT);
                Waits.until(() -> state.slotLag(SLOTS) == 0, TIMEOUT, "the source's slots to ack up to the end of the queue");
                app.stopProducing();
                Waits.until(() -> app.received() == app.sent(), TIMEOUT, "the application's consumer to receive every event it sent");
                watch.stop();

                OutputTopic.Contents contents = output.readToEnd(TIMEOUT);
                long duplicates = DeliveryCheck.atLeastOnce(contents.byKey(), KEYS, PER_KEY);
                assertEquals(List.of(), watch.failures(), "no task failed");
                assertEquals(List.of(), app.errorsNotRetriable(), "the application's transactions saw only retriable errors");
                System.out.println("[upgrade under traffic] 0.4.2 -> " + PgQueInstaller.bundledVersion() + " in " + upgradeMs
                        + " ms, then a re-run: " + input.total() + " records in, " + contents.records() + " out ("
                        + duplicates + " redelivered), per-key order held; the application sent " + app.sent()
                        + " events and received them all, " + app.errors() + " retriable error(s)");
            }
        }
    }

    private static String lastRelease() throws IOException {
        try (InputStream in = UpgradeUnderTrafficIT.class.getClassLoader().getResourceAsStream(LAST_RELEASE)) {
            assertNotNull(in, LAST_RELEASE + " on the test class path (pgque-client's test jar)");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Watches both connectors' tasks for the whole run and keeps every FAILED state it sees, with its trace. */
    private static final class TaskWatch {
        private final Stack stack;
        private final List<String> failures = new CopyOnWriteArrayList<>();
        private volatile boolean watching = true;
        private Thread thread;

        TaskWatch(Stack stack) {
            this.stack = stack;
        }

        void start() {
            thread = new Thread(() -> {
                while (watching) {
                    for (String connector : List.of(Pipeline.SOURCE, Pipeline.SINK)) {
                        ConnectorStateInfo status = stack.connectorStatus(connector);
                        if (status != null) {
                            status.tasks().stream().filter(t -> "FAILED".equals(t.state()))
                                    .forEach(t -> failures.add(connector + " task " + t.id() + ": " + t.trace()));
                        }
                    }
                    try {
                        Thread.sleep(100); // a sampling period: a failed task stays FAILED, so none is missed
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "task-watch");
            thread.start();
        }

        void stop() throws InterruptedException {
            watching = false;
            thread.join();
        }

        List<String> failures() {
            return failures.stream().distinct().toList();
        }
    }
}

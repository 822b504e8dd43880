/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import io.pgque.client.PgQue;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The round trip an adopter cares about first, on any {@link Stack}: keyed records into topic
 * {@code in} → sink → queue → source (4 slots) → topic {@code out}, with PostgreSQL restarted
 * halfway through the input. Every event must come out with each key's events in input order;
 * in the exactly-once mode (both connectors) each event exactly once in the queue and in the
 * output (read_committed). The embedded and the container variants run this same body.
 */
final class RoundTrip {

    static final int KEYS = 100;
    static final int PER_KEY = 30;
    private static final int RATE_PER_SECOND = 500;
    private static final int SLOTS = 4;
    private static final int TASKS = 2;
    private static final long POSTGRES_DOWN_MS = 2_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private RoundTrip() {
    }

    static void run(Stack stack, boolean exactlyOnce) throws Exception {
        String mode = exactlyOnce ? "exactly_once" : "at_least_once";
        String database = "round_trip_" + mode;
        String url = stack.createDatabase(database);
        DataSource db = stack.dataSource(database);
        PgQue.using(db).queues().create(Pipeline.QUEUE);
        String kafka = stack.bootstrapServers();
        KafkaClients.createTopics(kafka, Map.of(Pipeline.IN, Pipeline.IN_PARTITIONS, Pipeline.OUT, Pipeline.OUT_PARTITIONS));

        // The source first: a queue consumer only sees events sent after it subscribed.
        stack.configureConnector(Pipeline.SOURCE, Pipeline.sourceConfig(url, exactlyOnce, SLOTS, TASKS));
        awaitRunning(stack, Pipeline.SOURCE);
        stack.configureConnector(Pipeline.SINK, Pipeline.sinkConfig(url, exactlyOnce, TASKS));
        awaitRunning(stack, Pipeline.SINK);

        KeyedInput input = new KeyedInput(kafka, Pipeline.IN, KEYS, PER_KEY, RATE_PER_SECOND);
        OutputTopic output = new OutputTopic(kafka, Pipeline.OUT, exactlyOnce);
        PipeState state = new PipeState(kafka, db);
        input.start();
        Waits.until(() -> input.produced() >= input.total() / 2, TIMEOUT, "half the input to be produced");
        stack.restartPostgres(POSTGRES_DOWN_MS);
        input.awaitDone(TIMEOUT);

        output.awaitDistinct(input.total(), TIMEOUT);
        Waits.until(() -> state.slotLag(SLOTS) == 0, TIMEOUT, "the source's slots to ack up to the end of the queue");
        if (exactlyOnce) {
            Waits.until(() -> state.storedOffsetLag() == 0, TIMEOUT, "the sink's stored offsets to reach the end of the input");
        }
        awaitRunning(stack, Pipeline.SOURCE);
        awaitRunning(stack, Pipeline.SINK);
        OutputTopic.Contents contents = output.readToEnd(TIMEOUT);
        if (exactlyOnce) {
            DeliveryCheck.exactlyOnce(contents.byKey(), KEYS, PER_KEY);
            assertEquals(input.total(), contents.records(), "records in the output (read_committed)");
            assertEquals(input.total(), state.queueEvents(), "events in the queue");
        } else {
            DeliveryCheck.atLeastOnce(contents.byKey(), KEYS, PER_KEY);
        }
        System.out.println("[round trip, " + mode + "] " + stack.describe() + ": " + input.total() + " events in, "
                + contents.records() + " out, per-key order held for " + KEYS + " keys across a PostgreSQL restart");
    }

    /** The connector and exactly {@link #TASKS} tasks RUNNING. */
    private static void awaitRunning(Stack stack, String connector) throws InterruptedException {
        awaitRunning(stack, connector, TASKS, TIMEOUT);
    }

    /** The connector and exactly {@code tasks} tasks RUNNING, within {@code timeout}. */
    static void awaitRunning(Stack stack, String connector, int tasks, Duration timeout) throws InterruptedException {
        Waits.until(() -> {
            ConnectorStateInfo status = stack.connectorStatus(connector);
            return status != null
                    && "RUNNING".equals(status.connector().state())
                    && status.tasks().size() == tasks
                    && status.tasks().stream().allMatch(t -> "RUNNING".equals(t.state()));
        }, timeout, connector + " and its " + tasks + " tasks to run");
    }
}

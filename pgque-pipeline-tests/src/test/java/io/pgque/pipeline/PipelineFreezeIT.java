/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import io.pgque.client.PgQue;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL hangs: the postmaster and all its processes get SIGSTOP for 30 s while both
 * connectors run and keyed events flow in, then SIGCONT. Sessions stay connected and nothing
 * answers, which no timeout on the server side can end (the server's clock is stopped too):
 * only the connectors' own bounds can. While frozen, no connector thread may stay inside a
 * database call longer than the socket timeout (plus slack), no task may fail, and stopping
 * both connectors must end every one of their threads within a few seconds. After the thaw the
 * connectors are resumed and every event written before, during and after the freeze must come
 * out, in per-key order. A server of its own: a frozen server would stall any other test.
 */
class PipelineFreezeIT {

    private static final int KEYS = 50;
    private static final int PER_KEY = 60;
    /** 3,000 events over 50 s: some before the freeze (at 10 %), most during it, some after it. */
    private static final int RATE_PER_SECOND = 60;
    private static final int SLOTS = 4;
    private static final int TASKS = 2;
    private static final Duration FREEZE = Duration.ofSeconds(30);
    /** How long into the freeze the connectors are stopped: long enough for every task to be stuck. */
    private static final Duration STOP_AFTER = Duration.ofSeconds(15);
    private static final long STATEMENT_TIMEOUT_MS = 3_000;
    private static final long SOCKET_TIMEOUT_MS = 5_000;
    /**
     * A database call may last the socket timeout, and the sampling sees it a little late; a
     * loaded machine adds its own delays. Still far from the freeze's 30 s that an unbounded
     * wait would show.
     */
    private static final long LONGEST_CALL_BOUND_MS = SOCKET_TIMEOUT_MS + 7_000;
    /**
     * What the design allows: a source poll already inside a database call returns within the
     * socket timeout (Connect calls stop() only after it), then the task's orderly stop (3 s) and
     * the pools' bounded close (2 s); plus two REST stops and a loaded machine's delays (a run
     * beside a second build took 15.4 s). Still well short of the freeze's 30 s, within which the
     * old, unbounded stop never ended.
     */
    private static final long STOP_BOUND_MS = SOCKET_TIMEOUT_MS + 3_000 + 2_000 + 10_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    private static OwnPostgres postgres;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = OwnPostgres.start();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        if (postgres != null) {
            try {
                postgres.thaw();
            } finally {
                postgres.close();
            }
        }
    }

    @Test
    void frozenServer_noThreadHangs_stopIsQuick_andAfterTheThawEveryEventArrivesInOrder() throws Exception {
        String url = postgres.createDatabase("frozen_pipe");
        DataSource db = postgres.dataSource("frozen_pipe");
        PgQue.using(db).queues().create(Pipeline.QUEUE);

        try (Pipeline pipe = new Pipeline("pipeline-freeze", 1, url, false, SLOTS)) {
            Map<String, String> source = bounded(pipe.sourceConfig(TASKS));
            Map<String, String> sink = bounded(pipe.sinkConfig(TASKS));
            pipe.connect.configureConnector(Pipeline.SOURCE, source);
            pipe.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(Pipeline.SOURCE, TASKS, "source running");
            pipe.connect.configureConnector(Pipeline.SINK, sink);
            pipe.awaitRunning(TASKS);

            KeyedInput input = new KeyedInput(pipe.bootstrapServers(), Pipeline.IN, KEYS, PER_KEY, RATE_PER_SECOND);
            OutputTopic output = new OutputTopic(pipe.bootstrapServers(), Pipeline.OUT, false);
            PipeState state = new PipeState(pipe.bootstrapServers(), db);
            input.start();
            int before = input.total() / 10;
            Waits.until(() -> input.produced() >= before, TIMEOUT, "input to reach " + before + " records");
            Waits.until(() -> output.endOffsetsSum() > 0, TIMEOUT, "the first records to come out before the freeze");

            long stopMs;
            long longestCallMs;
            String longestThread;
            try (DatabaseWaits waits = new DatabaseWaits(PipelineFreezeIT::watched)) {
                long frozenAt = System.nanoTime();
                postgres.freeze();
                try {
                    log("frozen at " + input.produced() + " records in");
                    untilElapsed(frozenAt, STOP_AFTER, () -> {
                        assertNoTaskFailed(pipe, Pipeline.SOURCE);
                        assertNoTaskFailed(pipe, Pipeline.SINK);
                    });
                    long stopAt = System.nanoTime();
                    pipe.connect.stopConnector(Pipeline.SINK);
                    pipe.connect.stopConnector(Pipeline.SOURCE);
                    Waits.until(() -> connectorThreads().isEmpty(), FREEZE,
                            "the connectors' threads to end: " + connectorThreads());
                    stopMs = millisSince(stopAt);
                    log("both connectors stopped, all their threads ended, " + stopMs + " ms after the stop request");
                    untilElapsed(frozenAt, FREEZE, () -> { });
                } finally {
                    postgres.thaw();
                }
                log("thawed after " + millisSince(frozenAt) + " ms, " + input.produced() + " records in");
                longestCallMs = waits.longestMs();
                longestThread = waits.longestThread();
            }
            log("longest stay inside one database call while frozen: " + longestCallMs + " ms (" + longestThread + ")");

            pipe.connect.resumeConnector(Pipeline.SOURCE);
            pipe.connect.resumeConnector(Pipeline.SINK);
            pipe.awaitRunning(TASKS);
            input.awaitDone(TIMEOUT);
            output.awaitDistinct(input.total(), TIMEOUT);
            Waits.until(() -> state.slotLag(SLOTS) == 0, TIMEOUT, "the source's slots to ack up to the end of the queue");
            Waits.until(() -> state.sinkGroupLag() == 0, TIMEOUT, "the sink's consumer group to commit the end of the input");
            long duplicates = DeliveryCheck.atLeastOnce(output.readToEnd(TIMEOUT).byKey(), KEYS, PER_KEY);
            log("all " + input.total() + " events out in per-key order, " + duplicates + " duplicates (replayed suffixes)");

            assertTrue(longestCallMs <= LONGEST_CALL_BOUND_MS, "thread " + longestThread + " stayed " + longestCallMs
                    + " ms in one database call on a frozen server; bound " + LONGEST_CALL_BOUND_MS + " ms");
            assertTrue(stopMs <= STOP_BOUND_MS, "stopping both connectors on a frozen server took " + stopMs
                    + " ms; bound " + STOP_BOUND_MS + " ms");
            pipe.awaitRunning(TASKS);
        }
    }

    /** Short bounds, so that the 30 s freeze outlasts each of them several times. */
    private static Map<String, String> bounded(Map<String, String> config) {
        config.put("connection.timeout.ms", "2000");
        config.put("connection.statement.timeout.ms", Long.toString(STATEMENT_TIMEOUT_MS));
        config.put("connection.lock.timeout.ms", "2000");
        config.put("connection.socket.timeout.ms", Long.toString(SOCKET_TIMEOUT_MS));
        return config;
    }

    /**
     * The connectors' threads whose database calls must be bounded: Connect's task threads and
     * ours (writer, ticker, monitor, the pools' housekeepers). Not the tick listener, whose wait
     * for notifications is meant to last, nor the pools' connection adders, whose logins time
     * out and start over back to back (each bounded by connection.timeout.ms, but unbroken to a
     * sampler).
     */
    private static boolean watched(String name) {
        return ours(name) && !name.startsWith("pgque-ticks-") && !name.endsWith("connection-adder");
    }

    /**
     * A thread of one of the connectors' tasks: Connect's task thread (named so while the task
     * runs, stop() included) or one the task started (pools, writer, listener, ticker, monitor).
     * Not Connect's own threads around them (producers, consumer heartbeat), which outlive a
     * stopped task.
     */
    private static boolean ours(String name) {
        return (name.startsWith("task-thread-") || name.startsWith("pgque-"))
                && (name.contains(Pipeline.SINK) || name.contains(Pipeline.SOURCE));
    }

    /** Every live thread of the connectors' tasks. */
    private static List<String> connectorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(PipelineFreezeIT::ours)
                .sorted()
                .toList();
    }

    private static void assertNoTaskFailed(Pipeline pipe, String connector) {
        ConnectorStateInfo status = pipe.connect.connectorStatus(connector);
        for (ConnectorStateInfo.TaskState task : status.tasks()) {
            assertEquals("RUNNING", task.state(), connector + " task " + task.id() + " while frozen: " + task.trace());
        }
    }

    /** Runs {@code check} repeatedly until {@code length} has passed since {@code start}. */
    private static void untilElapsed(long start, Duration length, Runnable check) throws InterruptedException {
        while (System.nanoTime() - start < length.toNanos()) {
            check.run();
            Thread.sleep(500); // the freeze's length is the fault being injected, not a wait for something
        }
    }

    private static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1_000_000;
    }

    private static void log(String line) {
        System.out.println("[freeze] " + line);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import io.pgque.client.PgQue;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The whole pipe under faults: topic {@code in} → sink → queue → source (N = 4 slots) → topic
 * {@code out}, on two Connect workers beside a broker and a PostgreSQL of the suite's own.
 * 50,000 keyed events over 500 keys flow in at a steady rate while a script injects, one after
 * another: the sink's tasks failing and restarted through the REST API, a source task
 * restarted through the REST API, a worker stopped, a worker started again, both connectors
 * going from 2 to 3 tasks, and PostgreSQL restarted. Then every event must have come out (once,
 * in the exactly-once mode), each key's events in input order, and the queue's consumers and
 * the sink's consumer group must have caught up. What was injected and what was counted is
 * printed as it happens.
 */
class PipelineFaultsIT {

    private static final int KEYS = 500;
    private static final int PER_KEY = 100;
    private static final int RATE_PER_SECOND = 1_000;
    private static final int SLOTS = 4;
    private static final int WORKERS = 2;
    private static final long POSTGRES_DOWN_MS = 3_000;
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
    void atLeastOnce_everyEventArrives_duplicatesOnlyAsReplayedSuffixes_perKeyOrderKept() throws Exception {
        Run run = runWithFaults("at_least_once", false);
        long duplicates = DeliveryCheck.atLeastOnce(run.output().byKey(), KEYS, PER_KEY);
        run.report().counted("output: " + run.output().records() + " records, " + KEYS * PER_KEY + " distinct, "
                + duplicates + " duplicates, all as replayed suffixes; per-key order held for " + KEYS + " keys");
    }

    @Test
    void exactlyOnce_everyEventArrivesOnce_inPerKeyOrder() throws Exception {
        Run run = runWithFaults("exactly_once", true);
        DeliveryCheck.exactlyOnce(run.output().byKey(), KEYS, PER_KEY);
        assertEquals(KEYS * PER_KEY, run.output().records(), "records in the output (read_committed)");
        assertEquals(KEYS * PER_KEY, run.queueEvents(), "events in the queue");
        run.report().counted("output: " + run.output().records() + " records (read_committed), each event once, "
                + "per-key order equal to input order for " + KEYS + " keys; queue: " + run.queueEvents() + " events, none twice");
    }

    /** What a run left behind, for the mode's own checks. */
    private record Run(PipelineReport report, OutputTopic.Contents output, long queueEvents) {
    }

    private static Run runWithFaults(String mode, boolean exactlyOnce) throws Exception {
        String database = "pipe_" + mode;
        String url = postgres.createDatabase(database);
        DataSource db = postgres.dataSource(database);
        PgQue.using(db).queues().create(Pipeline.QUEUE);
        SinkFailureSwitch sinkFailure = new SinkFailureSwitch(db);
        sinkFailure.install();

        try (Pipeline pipe = new Pipeline("pipeline-" + mode, WORKERS, url, exactlyOnce, SLOTS)) {
            AtomicInteger tasks = new AtomicInteger(2);
            pipe.run(tasks.get());
            KeyedInput input = new KeyedInput(pipe.bootstrapServers(), Pipeline.IN, KEYS, PER_KEY, RATE_PER_SECOND);
            OutputTopic output = new OutputTopic(pipe.bootstrapServers(), Pipeline.OUT, exactlyOnce);
            PipeState state = new PipeState(pipe.bootstrapServers(), db);
            PipelineReport report = new PipelineReport(mode, input::produced, state::queueEvents, output::endOffsetsSum);

            FaultScript script = new FaultScript()
                    .at(0.08, "sink: writes refused, every sink task FAILED, restarted via REST", () -> {
                        sinkFailure.arm();
                        pipe.connect.assertions().assertConnectorIsRunningAndTasksHaveFailed(Pipeline.SINK, tasks.get(),
                                "sink tasks failed");
                        sinkFailure.disarm();
                        pipe.connect.restartConnectorAndTasks(Pipeline.SINK, true, true, false);
                        pipe.awaitRunning(tasks.get());
                    })
                    .at(0.20, "source task 0 restarted via REST", () -> {
                        pipe.connect.restartTask(Pipeline.SOURCE, 0);
                        pipe.awaitRunning(tasks.get());
                    })
                    .at(0.32, "a worker stopped (its tasks move to the other one)", () -> {
                        WorkerHandle worker = pipe.connect.workers().iterator().next();
                        pipe.connect.removeWorker(worker);
                        pipe.connect.assertions().assertExactlyNumWorkersAreUp(WORKERS - 1, "a worker left");
                        pipe.awaitRunning(tasks.get());
                    })
                    .at(0.44, "the worker started again (tasks spread over both)", () -> {
                        pipe.connect.addWorker();
                        pipe.connect.assertions().assertExactlyNumWorkersAreUp(WORKERS, "the worker is back");
                        pipe.awaitRunning(tasks.get());
                    })
                    .at(0.56, "tasks.max 2 -> 3 for the source and the sink (rebalance)", () -> {
                        tasks.set(3);
                        pipe.run(tasks.get());
                    })
                    .at(0.70, "PostgreSQL restarted, down " + POSTGRES_DOWN_MS + " ms", () -> {
                        postgres.restart(POSTGRES_DOWN_MS);
                        pipe.awaitRunning(tasks.get());
                    });

            report.line("start: " + KEYS * PER_KEY + " events over " + KEYS + " keys at " + RATE_PER_SECOND + "/s into '"
                    + Pipeline.IN + "' (" + Pipeline.IN_PARTITIONS + " partitions), " + WORKERS + " workers, source N = "
                    + SLOTS + ", " + tasks.get() + " tasks each, " + script.size() + " faults scripted");
            input.start();
            script.run(input::produced, input.total(), TIMEOUT, report);
            input.awaitDone(TIMEOUT);
            report.line("input done: " + input.produced() + " records");

            output.awaitDistinct(input.total(), TIMEOUT);
            Waits.until(() -> state.slotLag(SLOTS) == 0, TIMEOUT, "the source's slots to ack up to the end of the queue");
            Waits.until(() -> state.sinkGroupLag() == 0, TIMEOUT, "the sink's consumer group to commit the end of the input");
            if (exactlyOnce) {
                Waits.until(() -> state.storedOffsetLag() == 0, TIMEOUT, "the sink's stored offsets to reach the end of the input");
            }
            OutputTopic.Contents contents = output.readToEnd(TIMEOUT);
            long queueEvents = state.queueEvents();
            report.counted("input: " + input.produced() + " records; queue: " + queueEvents + " events ("
                    + (queueEvents - input.total()) + " written twice by the sink)");
            report.counted("lag: source slots 0 (all " + SLOTS + " acked to the end), sink consumer group 0"
                    + (exactlyOnce ? ", sink offsets stored in PostgreSQL at the end of every input partition" : ""));
            pipe.awaitRunning(tasks.get());
            return new Run(report, contents, queueEvents);
        }
    }
}

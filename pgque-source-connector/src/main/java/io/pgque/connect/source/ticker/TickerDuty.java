/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ticker;

import io.pgque.client.Operations;
import io.pgque.client.PgQue;
import io.pgque.connect.source.config.SourceConfigDef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * PgQue delivers nothing without ticks. Where no scheduler calls the engine's ticker, the
 * connector's tasks do, each on a thread of its own so that a slow tick never holds up polling:
 * {@code ticker_round(period)}, {@code maint()} then {@code maint_rotate_tables_step2()}, and
 * {@code maint_retry_events()}, each call its own transaction (the tick records its
 * transaction's snapshot; rotation's two steps must not share one), each on its own period.
 *
 * <p>Every task carries the duty, so it does not end with any one task. Who ticks in a round
 * is decided in the database: {@code ticker_round} lets one round run at a time and ticks a queue
 * only when its events have waited a period (or its own thresholds say so), so tasks that run
 * rounds side by side tick each queue about once per period, not once per task.
 */
public final class TickerDuty implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TickerDuty.class);

    private final ScheduledExecutorService scheduler;

    private TickerDuty(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    /** Starts the three jobs; {@link #close()} stops them. */
    public static TickerDuty start(DataSource dataSource, String threadName, Duration tickEvery,
                                   Duration maintEvery, Duration retryEvery) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        Operations operations = PgQue.using(dataSource).operations();
        TickCadence cadence = new TickCadence(tickEvery);
        scheduleAtCadence(scheduler, new Job("ticker_round", () -> operations.tickerRound(cadence.period())), cadence);
        schedule(scheduler, new Job("maint", () -> {
            operations.maint();
            // Step 2 of rotation in a transaction of its own, after maint()'s committed.
            operations.maintRotateTablesStep2();
        }), maintEvery);
        schedule(scheduler, new Job("maint_retry_events", operations::maintRetryEvents), retryEvery);
        log.info("Ticker duty started: ticker every {} ms, maint every {} ms, retries every {} ms",
                tickEvery.toMillis(), maintEvery.toMillis(), retryEvery.toMillis());
        // Said once, at start: pgque.start() jobs and this duty may both tick, harmlessly.
        scheduler.execute(() -> DatabaseTicking.scheduledBy(dataSource).ifPresent(detail -> log.warn(
                "Ticking is already scheduled inside the database ({}). This ticker duty runs as well, which is"
                        + " harmless (the engine serialises tickers per queue and ticks only when a tick is due)"
                        + " but redundant: set {}=false to leave ticking to the database",
                detail, SourceConfigDef.TICKER_ENABLED)));
        return new TickerDuty(scheduler);
    }

    /** Runs {@code job} at the cadence's fixed rate, from each round's start; see {@link TickCadence}. */
    private static void scheduleAtCadence(ScheduledExecutorService scheduler, Job job, TickCadence cadence) {
        scheduler.execute(new Runnable() {
            @Override
            public void run() {
                long start = System.nanoTime();
                job.run();
                try {
                    scheduler.schedule(this, cadence.delayNanos(start, System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closing) {
                    // close() shut the scheduler down while this round ran: no next one.
                }
            }
        });
    }

    private static void schedule(ScheduledExecutorService scheduler, Job job, Duration every) {
        // Fixed delay, not fixed rate: after a slow call the next one waits its turn instead of
        // piling up behind it.
        scheduler.scheduleWithFixedDelay(job, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            if (!scheduler.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("Ticker duty did not stop within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.info("Ticker duty stopped");
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    /**
     * One periodic call. A failure is logged and the job keeps its schedule: a database that is
     * away for a while must not end the ticking for good. Repeats of the same failure are logged
     * at DEBUG until a call succeeds again, so an outage does not flood the log.
     */
    private static final class Job implements Runnable {
        private final String name;
        private final Call call;
        private boolean failing;

        Job(String name, Call call) {
            this.name = name;
            this.call = call;
        }

        @Override
        public void run() {
            try {
                call.run();
                if (failing) {
                    log.info("pgque.{}() works again", name);
                    failing = false;
                }
            } catch (Exception e) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                if (!failing) {
                    log.warn("pgque.{}() failed; retrying on schedule: {}", name, e.getMessage(), e);
                    failing = true;
                } else {
                    log.debug("pgque.{}() still failing: {}", name, e.getMessage(), e);
                }
            }
        }
    }
}

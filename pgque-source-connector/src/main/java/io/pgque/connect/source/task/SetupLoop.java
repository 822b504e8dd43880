/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.task;

import io.pgque.client.PgQueException;
import io.pgque.client.PgQueInstaller;
import io.pgque.client.QueueNotFoundException;
import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.source.config.SourceConfigDef;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What a task makes sure of before it reads, tried until the database answers: the engine is
 * there (when asked to install it), then what the mode needs ({@link #setUp}). No task needs the
 * database before its first poll (the connector's start() and a task's start() never do), so a
 * database that is down at deployment fails nothing. While it is down, each poll tries
 * {@code connection.attempts} times, {@code connection.backoff.ms} apart (a wait {@link #stop}
 * cuts short), then reports a retriable failure to the worker, which polls again: the same
 * {@code connection.attempts} as the sink's.
 */
public abstract class SetupLoop {

    private static final Logger log = LoggerFactory.getLogger(SetupLoop.class);

    private final DataSource dataSource;
    private final SchemaInstall install;
    private final String queue;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final int attempts;
    private final Duration backoff;
    private volatile boolean done;
    private int attempt;
    private RuntimeException lastFailure;

    /**
     * @param attempts tries per {@link #ready} before it reports a retriable failure ({@code connection.attempts})
     * @param backoff  the wait after each failed try ({@code connection.backoff.ms})
     */
    protected SetupLoop(DataSource dataSource, SchemaInstall install, String queue, int attempts, Duration backoff) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
        }
        this.dataSource = dataSource;
        this.install = install;
        this.queue = queue;
        this.attempts = attempts;
        this.backoff = backoff;
    }

    /** The mode's part, after the engine is there; throws a {@link ConnectException} for a fault a retry cannot fix. */
    protected abstract void setUp(DataSource dataSource);

    /** The failure to report for a database fault that is not transient. */
    protected abstract ConnectException refusal(RuntimeException e);

    /** What is set up, for messages: "consumer 'c' on queue 'q'". */
    protected abstract String what();

    /**
     * True once set up. Otherwise tries up to {@code attempts} times, waiting the backoff after
     * each failed try (cut short by {@link #stop}, which makes it return false).
     *
     * @throws RetriableException when every try found the database away: the worker polls again,
     *         and the next call starts a new round (the backoff after the last try keeps that
     *         from becoming a tight loop)
     * @throws ConnectException   for a fault a retry cannot fix, with a message naming the key to change
     */
    public boolean ready() throws InterruptedException {
        for (int tried = 1; !done; tried++) {
            if (attemptNow()) {
                return true;
            }
            if (stopped.await(backoff.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            if (tried >= attempts) {
                throw new RetriableException("Could not set up " + what() + " in " + attempts + " attempt(s) "
                        + backoff.toMillis() + " ms apart (" + ConnectionConfigDef.ATTEMPTS + ", "
                        + ConnectionConfigDef.BACKOFF_MS + "); trying again at the next poll: "
                        + lastFailure.getMessage(), lastFailure);
            }
        }
        return true;
    }

    /**
     * One attempt, without waiting after a failure: what a task's start() may do, so that with the
     * database up the consumer exists before the task reports RUNNING.
     *
     * @return false when the database is away (a later {@link #ready} tries again)
     * @throws ConnectException for a fault a retry cannot fix
     */
    public boolean attemptNow() {
        attempt++;
        try {
            if (install == SchemaInstall.IF_MISSING && new PgQueInstaller(dataSource).installIfMissing()) {
                log.info("Installed the bundled PgQue engine");
            }
            setUp(dataSource);
            done = true;
            return true;
        } catch (QueueNotFoundException e) {
            throw new ConnectException("Queue '" + queue + "' (" + SourceConfigDef.QUEUE + ") does not exist; "
                    + "create it first: " + e.getMessage(), e);
        } catch (ConnectException e) {
            throw e;
        } catch (RuntimeException e) {
            if (!PgQueException.isTransient(e)) {
                throw refusal(e);
            }
            lastFailure = e;
            log.warn("Database unavailable while setting up {} (attempt {}): {}", what(), attempt, e.getMessage());
            log.debug("Setting up {} failed", what(), e);
            return false;
        }
    }

    /** Ends a wait in {@link #ready} at once. Any thread. */
    public void stop() {
        stopped.countDown();
    }
}

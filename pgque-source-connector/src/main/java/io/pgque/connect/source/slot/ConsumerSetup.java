/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.slot;

import io.pgque.client.PartitionMismatchException;
import io.pgque.client.PgQue;
import io.pgque.client.PgQueInstaller;
import io.pgque.client.QueueNotFoundException;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.source.config.SourceConfigDef;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What a task makes sure of before it reads: the engine is there (when asked to install it) and
 * the logical consumer exists with its N slots, all created in one step at one tick so that no
 * slot misses events the others see. Every task does it (the engine serialises installers and
 * pins N race-free), and none before its first poll: the connector's start() and a task's
 * start() never need the database, so a database that is down at deployment fails nothing.
 * While it is down, the task tries again with a backoff that doubles up to {@link #MAX_BACKOFF}.
 */
public final class ConsumerSetup {

    /** The longest wait between two attempts, however long the outage. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private static final Logger log = LoggerFactory.getLogger(ConsumerSetup.class);

    private final DataSource dataSource;
    private final SchemaInstall install;
    private final String queue;
    private final String consumer;
    private final int slots;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean done;
    private Duration backoff;
    private int attempt;

    public ConsumerSetup(DataSource dataSource, SchemaInstall install, String queue, String consumer, int slots,
                         Duration firstBackoff) {
        this.dataSource = dataSource;
        this.install = install;
        this.queue = queue;
        this.consumer = consumer;
        this.slots = slots;
        this.backoff = firstBackoff.isZero() ? Duration.ofMillis(100) : firstBackoff;
    }

    /**
     * True once the consumer is set up. Otherwise makes one attempt; if the database is away,
     * waits out the backoff (or until {@link #stop}) and returns false for the caller to come
     * back later.
     *
     * @throws ConnectException for a fault a retry cannot fix, with a message naming the key to change
     */
    public boolean ready() throws InterruptedException {
        if (done || attemptNow()) {
            return true;
        }
        stopped.await(backoff.toMillis(), TimeUnit.MILLISECONDS);
        backoff = next(backoff);
        return false;
    }

    /**
     * One attempt, without waiting after a failure: what a task's start() does, so that with the
     * database up the consumer exists before the task reports RUNNING (a consumer sees only the
     * events sent after it subscribed).
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
            PgQue.using(dataSource).slotConsumer(queue, consumer, slots, "connector").subscribe();
            log.info("Consumer {} reads queue {} through {} slots", consumer, queue, slots);
            done = true;
            return true;
        } catch (QueueNotFoundException e) {
            throw new ConnectException("Queue '" + queue + "' (" + SourceConfigDef.QUEUE + ") does not exist; "
                    + "create it first: " + e.getMessage(), e);
        } catch (PartitionMismatchException e) {
            throw new ConnectException("Consumer '" + consumer + "' of queue '" + queue + "' cannot be set up with "
                    + SourceConfigDef.SLOTS + "=" + slots + " (an existing consumer keeps its N): "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (!Failures.isTransient(e)) {
                throw new ConnectException("Cannot set up consumer '" + consumer + "' on queue '" + queue + "': "
                        + e.getMessage(), e);
            }
            log.warn("Database unavailable while setting up consumer {} on queue {} (attempt {}); retrying in {} ms: {}",
                    consumer, queue, attempt, backoff.toMillis(), e.getMessage());
            return false;
        }
    }

    /** Ends a wait in {@link #ready} at once. Any thread. */
    public void stop() {
        stopped.countDown();
    }

    static Duration next(Duration backoff) {
        Duration doubled = backoff.multipliedBy(2);
        return doubled.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : doubled;
    }
}

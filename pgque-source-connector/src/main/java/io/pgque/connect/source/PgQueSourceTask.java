/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.connect.common.pool.PoolShutdown;
import io.pgque.connect.source.config.SourceConfig;
import io.pgque.connect.source.config.SourceConfigRules;
import io.pgque.connect.source.config.SourceMode;
import io.pgque.connect.source.coop.CooperativeMode;
import io.pgque.connect.source.ordered.OrderedMode;
import io.pgque.connect.source.record.TrackedRecord;
import io.pgque.connect.source.task.TaskMode;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One task: reads in the mode the connector is configured for, chosen once at start: its share
 * of a partitioned consumer's slots ({@link OrderedMode}) or one member of a cooperative consumer
 * ({@link CooperativeMode}). This class sets the mode up, hands Kafka's acknowledgements to the
 * records' batches, and takes the mode and its resources down.
 */
public class PgQueSourceTask extends SourceTask {

    private static final Logger log = LoggerFactory.getLogger(PgQueSourceTask.class);
    /** How long stop() waits for Kafka to take the batches in flight, so they can be acked. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(2);
    /** How long stop() lets the task give its slots back before it aborts the database calls. */
    private static final Duration ORDERLY_STOP = Duration.ofMillis(3_000);
    /** How long stop() waits for the pools to close; the rest goes on in the background. */
    private static final Duration POOL_CLOSE_WAIT = Duration.ofSeconds(2);

    private int connectionAttempts;
    private TaskMode mode;

    @Override
    public String version() {
        return PgQueSourceConnector.VERSION.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SourceConfig config = new SourceConfig(props);
        SourceConfigRules.require(config);
        connectionAttempts = config.connection().attempts();
        mode = config.mode() == SourceMode.COOPERATIVE ? CooperativeMode.start(config, props, context)
                : OrderedMode.start(config, props, context);
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        mode.resources().health().checkOutage();
        if (!mode.setup().ready()) {
            return null;
        }
        return withConnectionAttempts(mode::poll);
    }

    @FunctionalInterface
    private interface Poll {
        List<SourceRecord> poll() throws InterruptedException;
    }

    /**
     * The pollers wait connection.backoff.ms after a transient failure, then report it; the
     * worker hears of it after connection.attempts of them in a row, as a sink task's does.
     */
    private List<SourceRecord> withConnectionAttempts(Poll poll) throws InterruptedException {
        for (int failures = 1; ; failures++) {
            try {
                return poll.poll();
            } catch (RetriableException e) {
                if (failures >= connectionAttempts) {
                    throw e;
                }
            }
        }
    }

    /**
     * Runs on the producer's callback thread: only counts the record towards its batch. The last
     * record of a batch wakes the poll thread, which Connect keeps waiting inside poll() between
     * batches, and that thread acks the batch and opens the slot's next one at once; this thread
     * never waits for the database. A null {@code metadata} means Connect dropped the record on
     * purpose (a filter, or a tolerated conversion error): the record is done as far as the batch
     * is concerned.
     */
    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        if (record instanceof TrackedRecord) {
            ((TrackedRecord) record).ticket().delivered();
        }
    }

    /**
     * Returns within about {@link #ORDERLY_STOP} plus {@link #POOL_CLOSE_WAIT} even when the
     * database hangs. Giving the slots back (acks, releases) and ending the listener, ticker and
     * monitor takes database calls, so it runs on a thread of its own and gets {@link #ORDERLY_STOP};
     * then the pools are closed, which aborts any call still stuck on a connection. A slot not
     * released that way keeps its lease until the TTL runs out, and its batch is read again by
     * the next owner.
     */
    @Override
    public void stop() {
        long start = System.nanoTime();
        if (mode == null) {
            return;
        }
        mode.setup().stop();
        mode.wakeUp();
        mode.resources().stopSampling();
        String worker = mode.worker();
        Thread orderly = new Thread(this::stopInOrder, "pgque-stop-" + worker);
        orderly.setDaemon(true);
        orderly.start();
        try {
            orderly.join(ORDERLY_STOP.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (orderly.isAlive()) {
            log.warn("Worker {} did not give its slots back within {} ms (the database does not answer); aborting its "
                    + "connections, its leases run out on their own", worker, ORDERLY_STOP.toMillis());
        }
        PoolShutdown.close(POOL_CLOSE_WAIT, mode.resources().pools());
        log.info("Worker {} stopped in {} ms", worker, (System.nanoTime() - start) / 1_000_000);
    }

    private void stopInOrder() {
        // A failing step must not leave the task's threads behind: the services close regardless.
        try {
            mode.resources().stopListening();
            mode.close(STOP_GRACE);
        } finally {
            mode.resources().closeServices();
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import io.pgque.client.QueueNotFoundException;
import io.pgque.connect.common.config.ConnectionSettings;
import io.pgque.connect.sink.offsets.OffsetsFencedException;
import io.pgque.connect.sink.config.PgQueSinkConfig;
import io.pgque.connect.sink.metrics.SinkEvents;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Writes the events of one put, whatever it takes short of giving up: makes the queues ready,
 * runs the put's transaction, and retries the whole of it after a transient failure. Connection
 * failures are retried {@code connection.attempts} times, {@code connection.backoff.ms} apart;
 * other transient failures {@code pgque.retry.max} times, {@code pgque.retry.backoff.ms} apart.
 * Then it asks Connect to redeliver the same records later ({@link RetriableException}, after
 * setting the task's retry timeout), so an outage stalls the task but never fails or skips.
 */
public final class SinkWriter {

    private static final Logger log = LoggerFactory.getLogger(SinkWriter.class);

    private final QueueReadiness readiness;
    private final PutTransaction transaction;
    private final int batchMaxRecords;
    private final int connectionRetries;
    private final long connectionBackoffMs;
    private final int writeRetries;
    private final long writeBackoffMs;
    private final LongConsumer redeliveryTimeout;
    private final SinkEvents metrics;

    /**
     * @param redeliveryTimeout receives the wait before Connect should redeliver after a
     *                          {@link RetriableException} ({@code SinkTaskContext::timeout})
     */
    public SinkWriter(DataSource dataSource, PgQueSinkConfig config, LongConsumer redeliveryTimeout) {
        this(dataSource, config, redeliveryTimeout, SinkEvents.NONE);
    }

    public SinkWriter(DataSource dataSource, PgQueSinkConfig config, LongConsumer redeliveryTimeout, SinkEvents metrics) {
        Long ttl = config.dedupTtlMs();
        this.readiness = new QueueReadiness(dataSource, config.schemaInstall(), config.queueAutoCreate());
        this.transaction = new PutTransaction(dataSource,
                new EventSender(ttl == null ? null : Duration.ofMillis(ttl), metrics));
        this.metrics = metrics;
        this.batchMaxRecords = config.batchMaxRecords();
        ConnectionSettings connection = config.connection();
        this.connectionRetries = connection.attempts() - 1;
        this.connectionBackoffMs = connection.backoffMs();
        this.writeRetries = config.retryMax();
        this.writeBackoffMs = config.retryBackoffMs();
        this.redeliveryTimeout = redeliveryTimeout;
    }

    /**
     * Writes {@code events} (in the order Connect delivered their records) and commits.
     *
     * @param canReport whether refused events may be returned for the dead letter queue
     * @return the events the database refused, for the caller to report
     * @throws RetriableException when the database stayed unavailable through every retry
     * @throws ConnectException   when retrying cannot help (missing queue, permissions, ...)
     */
    public List<RejectedEvent> write(List<PendingEvent> events, boolean canReport) {
        return write(events, canReport, BeforeCommit.NOTHING);
    }

    /**
     * Writes {@code events}, runs {@code beforeCommit} in the same transaction, and commits.
     * Every retry runs the whole transaction again, {@code beforeCommit} included.
     *
     * @throws OffsetsFencedException at once, never retried: the same transaction would be
     *         refused again; the caller must read the stored offsets again first
     */
    public List<RejectedEvent> write(List<PendingEvent> events, boolean canReport, BeforeCommit beforeCommit) {
        QueueBatches batches = QueueBatches.of(events, batchMaxRecords);
        int connectionFailures = 0;
        int writeFailures = 0;
        while (true) {
            try {
                readiness.ensure(batches.queues());
                return transaction.write(batches, canReport, beforeCommit);
            } catch (OffsetsFencedException e) {
                throw e;
            } catch (QueueNotFoundException e) {
                // A queue we knew of was dropped: look again next time. With auto-create that
                // next time recreates it, so it counts as a transient failure.
                readiness.forget();
                if (!readiness.autoCreate()) {
                    throw new ConnectException(failureMessage(batches, e), e);
                }
                writeFailures = retryOrGiveUp(++writeFailures, writeRetries, writeBackoffMs, batches, e);
            } catch (RuntimeException e) {
                FailureKind kind = FailureKind.of(e);
                if (kind == FailureKind.NO_CONNECTION) {
                    connectionFailures = retryOrGiveUp(++connectionFailures, connectionRetries, connectionBackoffMs, batches, e);
                } else if (kind == FailureKind.TRANSIENT) {
                    writeFailures = retryOrGiveUp(++writeFailures, writeRetries, writeBackoffMs, batches, e);
                } else if (e instanceof ConnectException) {
                    throw e;
                } else {
                    throw new ConnectException(failureMessage(batches, e), e);
                }
            }
        }
    }

    private int retryOrGiveUp(int failures, int retries, long backoffMs, QueueBatches batches, RuntimeException e) {
        metrics.transientFailure(failures <= retries);
        if (failures > retries) {
            redeliveryTimeout.accept(backoffMs);
            throw new RetriableException(failureMessage(batches, e) + "; gave up after " + failures
                    + " attempts, the worker will deliver the records again in " + backoffMs + " ms", e);
        }
        log.warn("{}; retry {} of {} in {} ms", failureMessage(batches, e), failures, retries, backoffMs);
        log.debug("The failure behind retry {}", failures, e);
        try {
            Thread.sleep(backoffMs);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new RetriableException("Interrupted while waiting to retry a write", interrupted);
        }
        return failures;
    }

    private static String failureMessage(QueueBatches batches, RuntimeException e) {
        return "Writing " + batches.eventCount() + " events (" + OffsetRanges.describe(batches) + ") to "
                + batches.queues() + " failed: " + e.getMessage();
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.errors;

import io.pgque.connect.sink.metrics.SinkEvents;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Sends a bad record where Kafka Connect's error settings say: to the errant record reporter
 * (which honours errors.tolerance and the dead letter queue), or, when the worker offers none,
 * fails the task with the record's coordinates and the reason. Never drops a record silently.
 *
 * <p>Used by one thread at a time: the task's thread, or its writer thread during an
 * exactly-once write (the task thread waits for that write before it uses the handler again).
 */
public final class BadRecordHandler {

    private static final Logger log = LoggerFactory.getLogger(BadRecordHandler.class);

    private final ErrantRecordReporter reporter;
    private final SinkEvents metrics;
    // Reports still on their way to the dead letter topic; see awaitReports().
    private final List<Future<Void>> pending = new ArrayList<>();

    /** {@code reporter} may be null: then every bad record fails the task. */
    public BadRecordHandler(ErrantRecordReporter reporter) {
        this(reporter, SinkEvents.NONE);
    }

    public BadRecordHandler(ErrantRecordReporter reporter, SinkEvents metrics) {
        this.reporter = reporter;
        this.metrics = metrics;
    }

    /**
     * Whether a bad record can be reported rather than fail the task. Connect offers a reporter
     * only when a dead letter topic or error logging is configured.
     */
    public boolean canReport() {
        return reporter != null;
    }

    /**
     * Reports {@code record}.
     *
     * @throws BadRecordException when there is no reporter
     * @throws org.apache.kafka.connect.errors.ConnectException from the reporter when
     *         errors.tolerance does not allow the record to be skipped
     */
    public void handle(SinkRecord record, String reason) {
        BadRecordException error = new BadRecordException(record, reason);
        if (reporter == null) {
            throw error;
        }
        log.warn("Reporting bad record: {}", error.getMessage());
        pending.add(reporter.report(record, error));
        metrics.deadLettered();
    }

    /**
     * Waits until every report made so far has reached the dead letter queue. Called before the
     * offsets of the reported records are committed: a report that was lost must not be covered
     * by a committed offset, or the record would be gone from both places.
     *
     * @throws ConnectException when a report failed; the offsets are then not committed and the
     *         records are delivered again
     */
    public void awaitReports() {
        try {
            for (Future<Void> future : pending) {
                future.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while waiting for bad records to reach the dead letter queue", e);
        } catch (ExecutionException e) {
            throw new ConnectException("A bad record could not be reported to the dead letter queue", e.getCause());
        } finally {
            pending.clear();
        }
    }
}

package io.pgque.connect.sink.errors;

import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a bad record where Kafka Connect's error settings say: to the errant record reporter
 * (which honours errors.tolerance and the dead letter queue), or, when the worker offers none,
 * fails the task with the record's coordinates and the reason. Never drops a record silently.
 */
public final class BadRecordHandler {

    private static final Logger log = LoggerFactory.getLogger(BadRecordHandler.class);

    private final ErrantRecordReporter reporter;

    /** {@code reporter} may be null: then every bad record fails the task. */
    public BadRecordHandler(ErrantRecordReporter reporter) {
        this.reporter = reporter;
    }

    /**
     * Reports {@code record}. The worker waits for the report to complete before it commits the
     * record's offset, so there is no need to wait here.
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
        log.debug("Reporting bad record: {}", error.getMessage());
        reporter.report(record, error);
    }
}

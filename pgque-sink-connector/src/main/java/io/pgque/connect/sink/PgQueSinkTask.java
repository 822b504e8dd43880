package io.pgque.connect.sink;

import io.pgque.connect.sink.config.PgQueSinkConfig;
import io.pgque.connect.sink.convert.ConversionOutcome;
import io.pgque.connect.sink.convert.EventDraft;
import io.pgque.connect.sink.convert.RecordConverter;
import io.pgque.connect.sink.errors.BadRecordHandler;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Converts the records Connect hands it into events, in the order received (so offset order
 * within each partition), and sends bad records to the errant record reporter.
 *
 * <p>Writing the events to PostgreSQL is not part of this build yet: it comes with the PgQue
 * client. Until then a put with anything to write fails the task, so no record is ever
 * acknowledged to Kafka without being in a queue.
 */
public final class PgQueSinkTask extends SinkTask {

    private static final Logger log = LoggerFactory.getLogger(PgQueSinkTask.class);

    private RecordConverter converter;
    private BadRecordHandler badRecords;

    @Override
    public String version() {
        return SinkVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        PgQueSinkConfig config = new PgQueSinkConfig(props);
        this.converter = new RecordConverter(config);
        this.badRecords = new BadRecordHandler(context == null ? null : context.errantRecordReporter());
        log.info("Started PgQue sink task: {}", config.queueRouting());
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        List<EventDraft> events = new ArrayList<>(records.size());
        for (SinkRecord record : records) {
            ConversionOutcome outcome = converter.convert(record);
            if (outcome instanceof ConversionOutcome.Converted converted) {
                events.add(converted.event());
            } else if (outcome instanceof ConversionOutcome.Rejected rejected) {
                badRecords.handle(record, rejected.reason());
            }
            // Skipped records need no write; their offsets are committed with the others.
        }
        if (!events.isEmpty()) {
            throw new ConnectException("The PgQue sink cannot write events yet (the database write path is not "
                    + "in this build); failing instead of acknowledging " + events.size() + " records that are "
                    + "not in a queue");
        }
    }

    @Override
    public void stop() {
        // Nothing is held yet; the write path will close its connection pool here.
    }
}

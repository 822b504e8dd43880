package io.pgque.connect.sink;

import com.zaxxer.hikari.HikariDataSource;
import io.pgque.connect.common.pool.DataSourceFactory;
import io.pgque.connect.sink.config.PgQueSinkConfig;
import io.pgque.connect.sink.convert.ConversionOutcome;
import io.pgque.connect.sink.convert.RecordConverter;
import io.pgque.connect.sink.errors.BadRecordHandler;
import io.pgque.connect.sink.write.PendingEvent;
import io.pgque.connect.sink.write.RejectedEvent;
import io.pgque.connect.sink.write.SinkWriter;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Converts the records Connect hands it into events and writes each put in one transaction
 * before returning, so nothing is buffered between puts: when Connect commits an offset, the
 * record's event is already committed in PostgreSQL (at least once; a failure may write a
 * suffix twice, never out of order).
 */
public final class PgQueSinkTask extends SinkTask {

    /** Set by the connector in each task's configuration; names the task's pool and sessions. */
    public static final String TASK_INDEX = "pgque.sink.task.index";

    private static final Logger log = LoggerFactory.getLogger(PgQueSinkTask.class);

    private RecordConverter converter;
    private BadRecordHandler badRecords;
    private HikariDataSource pool;
    private SinkWriter writer;

    /** A record that cannot become an event, and why. */
    private record Refused(SinkRecord record, String reason) {
    }

    @Override
    public String version() {
        return SinkVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        PgQueSinkConfig config = new PgQueSinkConfig(props);
        this.converter = new RecordConverter(config);
        this.badRecords = new BadRecordHandler(context == null ? null : context.errantRecordReporter());
        this.pool = DataSourceFactory.create(config.connection(), poolName(props));
        this.writer = new SinkWriter(pool, config, timeoutMs -> {
            if (context != null) {
                context.timeout(timeoutMs);
            }
        });
        log.info("Started PgQue sink task {}: {}", pool.getPoolName(), config.queueRouting());
    }

    /**
     * Writes every convertible record, then reports the bad ones. Without a reporter a bad
     * record fails the task before anything of this put is written.
     */
    @Override
    public void put(Collection<SinkRecord> records) {
        List<PendingEvent> events = new ArrayList<>(records.size());
        List<Refused> refused = new ArrayList<>();
        for (SinkRecord record : records) {
            ConversionOutcome outcome = converter.convert(record);
            if (outcome instanceof ConversionOutcome.Converted converted) {
                events.add(new PendingEvent(record, converted.event()));
            } else if (outcome instanceof ConversionOutcome.Rejected rejected) {
                refused.add(new Refused(record, rejected.reason()));
            }
            // Skipped records need no write; their offsets are committed with the others.
        }
        if (!refused.isEmpty() && !badRecords.canReport()) {
            badRecords.handle(refused.get(0).record(), refused.get(0).reason());
        }
        List<RejectedEvent> rejectedByDatabase = events.isEmpty() ? List.of() : writer.write(events, badRecords.canReport());
        // Reported after the write committed, so a write that is retried never reports twice.
        for (Refused bad : refused) {
            badRecords.handle(bad.record(), bad.reason());
        }
        for (RejectedEvent bad : rejectedByDatabase) {
            badRecords.handle(bad.event().record(), "the database refused the event: " + bad.reason());
        }
    }

    /** Everything was written in put(); only the dead letter reports may still be in flight. */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        badRecords.awaitReports();
        return currentOffsets;
    }

    @Override
    public void stop() {
        if (pool != null) {
            pool.close();
        }
    }

    // pgque-sink-<connector>-<task>: the pool's name in logs and metrics, and the sessions'
    // application_name in pg_stat_activity.
    private static String poolName(Map<String, String> props) {
        return "pgque-sink-" + props.getOrDefault("name", "unnamed") + "-" + props.getOrDefault(TASK_INDEX, "0");
    }
}

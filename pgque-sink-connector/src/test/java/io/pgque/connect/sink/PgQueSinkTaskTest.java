package io.pgque.connect.sink;

import io.pgque.connect.sink.errors.BadRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static io.pgque.connect.sink.Fixtures.props;
import static io.pgque.connect.sink.Fixtures.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PgQueSinkTaskTest {

    /** A worker context that has only what the task uses: the errant record reporter. */
    private static final class Context implements SinkTaskContext {
        final List<SinkRecord> reported = new ArrayList<>();
        final List<String> reasons = new ArrayList<>();
        private final boolean withReporter;

        Context(boolean withReporter) {
            this.withReporter = withReporter;
        }

        @Override
        public ErrantRecordReporter errantRecordReporter() {
            if (!withReporter) {
                return null;
            }
            return (record, error) -> {
                reported.add(record);
                reasons.add(error.getMessage());
                return CompletableFuture.completedFuture(null);
            };
        }

        @Override public Map<String, String> configs() { return Map.of(); }
        @Override public void offset(Map<TopicPartition, Long> offsets) { }
        @Override public void offset(TopicPartition tp, long offset) { }
        @Override public void timeout(long timeoutMs) { }
        @Override public Set<TopicPartition> assignment() { return Set.of(); }
        @Override public void pause(TopicPartition... partitions) { }
        @Override public void resume(TopicPartition... partitions) { }
        @Override public void requestCommit() { }
        @Override public PluginMetrics pluginMetrics() { return null; }
    }

    private static PgQueSinkTask started(Context context, String... overrides) {
        PgQueSinkTask task = new PgQueSinkTask();
        task.initialize(context);
        task.start(props(overrides));
        return task;
    }

    @Test
    void emptyPutsAndSkippedTombstonesNeedNoWrite() {
        PgQueSinkTask task = started(new Context(true));
        task.put(List.of());
        task.put(List.of(record("k", null)));
        task.stop();
    }

    @Test
    void badRecordsGoToTheReporter() {
        Context context = new Context(true);
        PgQueSinkTask task = started(context);
        SinkRecord bad = record("k", "not json");
        task.put(List.of(bad));
        assertEquals(List.of(bad), context.reported);
        assertTrue(context.reasons.get(0).contains("offset=42: value is not JSON"), context.reasons::toString);
    }

    @Test
    void withoutAReporterABadRecordFailsTheTask() {
        PgQueSinkTask task = started(new Context(false));
        BadRecordException e = assertThrows(BadRecordException.class, () -> task.put(List.of(record("k", "not json"))));
        assertTrue(e.getMessage().contains("topic=orders, partition=3, offset=42"), e.getMessage());
    }
}

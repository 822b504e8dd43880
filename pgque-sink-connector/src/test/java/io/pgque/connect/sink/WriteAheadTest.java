/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static io.pgque.connect.sink.Fixtures.props;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A put's write runs on the task's writer thread while the worker delivers the next records.
 * When that write fails for a curable reason (here: nothing listens where the database should
 * be, and no retries are left), the worker has already moved on; the task must have it deliver
 * the failed put's partitions again from the put's first record, and never let Kafka commit past
 * it.
 */
class WriteAheadTest {

    private static final TopicPartition P0 = new TopicPartition(Fixtures.TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(Fixtures.TOPIC, 1);

    private final List<PgQueSinkTask> started = new ArrayList<>();

    @AfterEach
    void stop() {
        started.forEach(PgQueSinkTask::stop);
    }

    private PgQueSinkTask unreachable(RecordingContext context) {
        PgQueSinkTask task = new PgQueSinkTask();
        task.initialize(context);
        // Port 1 on the loopback address: refused at once, so each write fails quickly.
        task.start(props("connection.url", "jdbc:postgresql://127.0.0.1:1/app", "connection.attempts", "1",
                "connection.timeout.ms", "250", "pgque.payload.format", "string"));
        started.add(task);
        return task;
    }

    private static List<SinkRecord> records(TopicPartition tp, long from, long toExclusive) {
        return LongStream.range(from, toExclusive).mapToObj(offset -> new SinkRecord(tp.topic(), tp.partition(), null,
                "k", null, "v" + offset, offset, 1_700_000_000_000L, TimestampType.CREATE_TIME, new ConnectHeaders())).toList();
    }

    @Test
    void aFailedWriteIsDeliveredAgainFromItsFirstRecordAndKafkaNeverCommitsPastIt() {
        RecordingContext context = new RecordingContext(true);
        PgQueSinkTask task = unreachable(context);

        task.put(records(P0, 0, 3));   // returns while its write is failing on the writer thread
        List<SinkRecord> next = new ArrayList<>(records(P0, 3, 5));
        next.addAll(records(P1, 0, 2));
        task.put(next);                // waits for that write first
        assertEquals(Map.of(P0, 0L), context.seeks, "P0 sought back to the failed put's first record");
        assertEquals(List.of(), context.reported, "nothing reported as bad: the records come again");

        // The worker has not sought yet, so it counts P0 as delivered up to 5; P1's write fails too.
        Map<TopicPartition, OffsetAndMetadata> committable = task.preCommit(
                Map.of(P0, new OffsetAndMetadata(5), P1, new OffsetAndMetadata(2)));
        assertEquals(Map.of(P0, new OffsetAndMetadata(0), P1, new OffsetAndMetadata(0)), committable,
                "never past a write that failed");

        task.put(List.of());
        assertEquals(Map.of(P0, 0L, P1, 0L), context.seeks, "P1 sought back at the next put");
        // The worker sought both before this delivery: its offsets are right again.
        assertEquals(Map.of(P0, new OffsetAndMetadata(0)), task.preCommit(Map.of(P0, new OffsetAndMetadata(0))));
    }

    @Test
    void aPartitionTakenAwayIsNotSoughtByTheTaskThatLostIt() {
        RecordingContext context = new RecordingContext(true);
        PgQueSinkTask task = unreachable(context);

        List<SinkRecord> put = new ArrayList<>(records(P0, 0, 3));
        put.addAll(records(P1, 7, 9));
        task.put(put);
        task.close(List.of(P1));       // waits for the write; P1's next owner starts from Kafka's commit
        task.put(List.of());
        assertEquals(Map.of(P0, 0L), context.seeks);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.client.Message;
import io.pgque.client.PgQue;
import io.pgque.testing.EmbeddedPg;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The exactly-once mode against a real PostgreSQL, with the task driven the way a worker drives
 * it (open, put, preCommit, close), so each step of a rebalance or a zombie can be placed
 * exactly. The whole-cluster view is {@link SinkExactlyOnceIT}.
 */
class ExactlyOnceTaskIT {

    private static final String TOPIC = "orders";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static EmbeddedPg.TestDatabase db;
    private static int connectors;

    private final List<PgQueSinkTask> started = new ArrayList<>();
    private String connector;
    private String queue;

    @BeforeAll
    static void database() {
        db = EmbeddedPg.newDatabase("sink_eos_task").installEngine();
    }

    @AfterEach
    void stopTasks() {
        started.forEach(PgQueSinkTask::stop);
    }

    /** A fresh connector name and queue per test, and a reader subscribed before anything is sent. */
    private QueueReader freshQueue() {
        int n = ++connectors;
        connector = "eos-" + n;
        queue = "eos_" + n;
        PgQue.using(db.superuser()).queues().create(queue);
        return new QueueReader(db.superuser(), queue, "test");
    }

    private PgQueSinkTask task(RecordingContext context, String... overrides) {
        Map<String, String> props = new HashMap<>();
        props.put("name", connector);
        props.put("connection.url", db.jdbcUrl());
        props.put("topics", TOPIC);
        props.put("pgque.queue", queue);
        props.put("pgque.payload.format", "string");
        props.put("pgque.delivery.guarantee", "exactly_once");
        for (int i = 0; i < overrides.length; i += 2) {
            props.put(overrides[i], overrides[i + 1]);
        }
        PgQueSinkTask task = new PgQueSinkTask();
        task.initialize(context);
        task.start(props);
        started.add(task);
        return task;
    }

    /**
     * A put, then the wait for its write that the worker's next put or offset commit makes (the
     * write runs on the task's writer thread).
     */
    private static void putAndWait(PgQueSinkTask task, List<SinkRecord> records) {
        task.put(records);
        task.preCommit(Map.of());
    }

    private static SinkRecord record(TopicPartition tp, long offset) {
        return record(tp, offset, tp.partition() + ":" + offset);
    }

    private static SinkRecord record(TopicPartition tp, long offset, String value) {
        return new SinkRecord(tp.topic(), tp.partition(), null, "k" + tp.partition(), null, value, offset,
                1_700_000_000_000L, TimestampType.CREATE_TIME, new ConnectHeaders());
    }

    private static List<SinkRecord> records(TopicPartition tp, long from, long toExclusive) {
        return LongStream.range(from, toExclusive).mapToObj(offset -> record(tp, offset)).toList();
    }

    private static List<String> payloads(TopicPartition tp, long from, long toExclusive) {
        return LongStream.range(from, toExclusive).mapToObj(offset -> tp.partition() + ":" + offset).toList();
    }

    private Map<TopicPartition, Long> stored() {
        Map<TopicPartition, Long> stored = new HashMap<>();
        try (Connection c = db.superuser().getConnection();
             PreparedStatement ps = c.prepareStatement("select * from pgque.sink_offsets(?)")) {
            ps.setString(1, connector);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stored.put(new TopicPartition(rs.getString("topic"), rs.getInt("kafka_partition")), rs.getLong("next_offset"));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return stored;
    }

    /** Another writer's transaction: its events and its offset move, committed together (as a task does). */
    private void otherWriter(TopicPartition tp, Long expected, long next, List<String> payloads) throws SQLException {
        try (Connection c = db.superuser().getConnection()) {
            c.setAutoCommit(false);
            for (String payload : payloads) {
                PgQue.using(c).producer().send(queue, TOPIC, payload);
            }
            commitOffset(c, tp, expected, next);
            c.commit();
        }
    }

    private void commitOffset(Connection c, TopicPartition tp, Long expected, long next) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "select pgque.sink_commit_offsets(?, array[?], array[?]::int4[], array[?]::bigint[], array[?]::bigint[])")) {
            ps.setString(1, connector);
            ps.setString(2, tp.topic());
            ps.setInt(3, tp.partition());
            ps.setObject(4, expected, java.sql.Types.BIGINT);
            ps.setLong(5, next);
            ps.executeQuery().close();
        }
    }

    private static List<String> texts(List<Message> messages) {
        return messages.stream().map(Message::payload).toList();
    }

    @Test
    void aPutCommitsItsEventsWithTheOffsetsAndPreCommitReportsOnlyWhatIsStored() {
        QueueReader reader = freshQueue();
        PgQueSinkTask task = task(new RecordingContext(true));
        task.open(List.of(P0, P1));
        List<SinkRecord> put = new ArrayList<>(records(P0, 0, 5));
        put.addAll(records(P1, 0, 3));
        putAndWait(task, put);

        assertEquals(Map.of(P0, 5L, P1, 3L), stored());
        assertEquals(8, reader.awaitCount(8, WAIT).size());
        Map<TopicPartition, OffsetAndMetadata> committable = task.preCommit(Map.of(
                P0, new OffsetAndMetadata(9), P1, new OffsetAndMetadata(3), new TopicPartition(TOPIC, 2), new OffsetAndMetadata(4)));
        assertEquals(Map.of(P0, new OffsetAndMetadata(5), P1, new OffsetAndMetadata(3)), committable,
                "never beyond PostgreSQL; nothing for a partition that has stored nothing");
    }

    @Test
    void aNewOwnerSeeksToTheStoredOffsetsAndDropsWhatKafkaDeliversAgain() {
        QueueReader reader = freshQueue();
        PgQueSinkTask first = task(new RecordingContext(true));
        first.open(List.of(P0));
        putAndWait(first, records(P0, 0, 5));
        first.close(List.of(P0));

        RecordingContext context = new RecordingContext(true);
        PgQueSinkTask second = task(context);
        second.open(List.of(P0, P1));
        assertEquals(Map.of(P0, 5L), context.seeks, "seeks where something is stored, only there");
        // Kafka's group offset was older than PostgreSQL's: it delivers 3 and 4 again.
        putAndWait(second, records(P0, 3, 8));

        assertEquals(payloads(P0, 0, 8), texts(reader.awaitCount(8, WAIT)));
        assertEquals(Map.of(P0, 8L), stored());
    }

    @Test
    void aZombieWithAStaleViewIsRefusedAndTheTaskThatLostThePartitionWritesOnlyWhatIsMissing() throws Exception {
        QueueReader reader = freshQueue();
        RecordingContext ownerContext = new RecordingContext(true).withPluginMetrics();
        PgQueSinkTask owner = task(ownerContext);
        owner.open(List.of(P0));
        putAndWait(owner, records(P0, 0, 5));

        // A plain JDBC writer that still believes 0 (or nothing) is stored is refused, and moves nothing.
        try (Connection c = db.superuser().getConnection()) {
            c.setAutoCommit(false);
            SQLException stale = assertThrows(SQLException.class, () -> commitOffset(c, P0, 0L, 9));
            assertEquals("PQ010", stale.getSQLState());
            c.rollback();
            SQLException never = assertThrows(SQLException.class, () -> commitOffset(c, P0, null, 9));
            assertEquals("PQ010", never.getSQLState());
            c.rollback();
        }
        assertEquals(Map.of(P0, 5L), stored());

        // The partition moved: the new owner wrote 5..9. The old owner, not told yet, puts 5..11.
        otherWriter(P0, 5L, 10, payloads(P0, 5, 10));
        putAndWait(owner, records(P0, 5, 12));
        assertEquals(Map.of(P0, 12L), stored(), "refused once, then wrote only 10 and 11");
        assertEquals(1, ownerContext.metric("offset-fencing-refusals-total"), "the refusal is counted");
        assertEquals(5 + 2, ownerContext.metric("events-written-total"), "the refused attempt's events are not");

        // And the new owner, whose view (10) is now stale in turn, does the same with 10..14.
        PgQueSinkTask newOwner = task(new RecordingContext(true));
        newOwner.open(List.of(P0));
        otherWriter(P0, 12L, 12 + 1, List.of("0:12"));   // one more move, so its view of 12 goes stale too
        putAndWait(newOwner, records(P0, 12, 15));

        assertEquals(payloads(P0, 0, 15), texts(reader.awaitCount(15, WAIT)), "each record once, in offset order");
        assertEquals(Map.of(P0, 15L), stored());
    }

    @Test
    void badAndSkippedRecordsAreHandledSoTheyAdvanceTheStoredOffset() {
        QueueReader reader = freshQueue();
        RecordingContext context = new RecordingContext(true);
        PgQueSinkTask task = task(context, "pgque.payload.format", "json");
        task.open(List.of(P0));
        putAndWait(task, List.of(record(P0, 0, "{\"ok\":0}"), record(P0, 1, "not json"), record(P0, 2, "{\"ok\":2}")));
        assertEquals(1, context.reported.size(), "the bad record was reported before the commit");
        assertEquals(Map.of(P0, 3L), stored());

        putAndWait(task, List.of(record(P0, 3, null)));   // a tombstone, skipped: nothing to write, offset still moves
        assertEquals(Map.of(P0, 4L), stored());
        assertEquals(List.of("{\"ok\":0}", "{\"ok\":2}"), texts(reader.awaitCount(2, WAIT)));
    }

    @Test
    void recordsAboveTheStoredOffsetOfAPartitionReadLateAreLeftToARedeliveryFromThere() throws Exception {
        QueueReader reader = freshQueue();
        RecordingContext context = new RecordingContext(true);
        PgQueSinkTask task = task(context);
        task.open(List.of(P0));
        // Another writer stores 0..2 behind the task's back; the task's next put starts at 7, so
        // once fenced it learns 3 is stored and must not skip 3..6.
        otherWriter(P0, null, 3, payloads(P0, 0, 3));
        putAndWait(task, records(P0, 7, 9));
        assertEquals(Map.of(P0, 3L), stored(), "nothing written from above it");
        // The worker delivered on meanwhile: the task reads the stored offset again and seeks back.
        task.put(records(P0, 9, 10));
        assertEquals(Map.of(P0, 3L), context.seeks, "sought back to the stored offset");
        assertEquals(Map.of(P0, 3L), stored(), "still nothing written from above it");

        putAndWait(task, records(P0, 3, 10));   // the redelivery from the seek
        assertEquals(payloads(P0, 0, 10), texts(reader.awaitCount(10, WAIT)), "each once, in order");
    }
}

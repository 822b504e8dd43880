/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.testing.EmbeddedPg;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A write that fails for good on the writer thread (here: its queue does not exist and the
 * connector may not create it) fails the task from the next put, and from then on Kafka is
 * never told to commit the put the worker counts as delivered.
 */
class WriteAheadFailureIT {

    private static final TopicPartition P0 = new TopicPartition(Fixtures.TOPIC, 0);

    private static EmbeddedPg.TestDatabase db;

    private final List<PgQueSinkTask> started = new ArrayList<>();

    @BeforeAll
    static void database() {
        db = EmbeddedPg.newDatabase("sink_write_ahead").installEngine();
    }

    @AfterEach
    void stop() {
        started.forEach(PgQueSinkTask::stop);
    }

    private static List<SinkRecord> records(long from, long toExclusive) {
        return LongStream.range(from, toExclusive).mapToObj(offset -> new SinkRecord(P0.topic(), P0.partition(), null,
                "k", null, "v" + offset, offset, 1_700_000_000_000L, TimestampType.CREATE_TIME, new ConnectHeaders())).toList();
    }

    @Test
    void aWriteThatFailsForGoodFailsTheNextPutAndCommitsNothing() {
        PgQueSinkTask task = new PgQueSinkTask();
        task.initialize(new RecordingContext(true));
        task.start(Fixtures.props("connection.url", db.jdbcUrl(), "connection.user", null, "connection.password", null,
                "pgque.queue", "no_such_queue", "pgque.payload.format", "string"));
        started.add(task);

        task.put(records(0, 3));   // returns while its write fails
        ConnectException failure = assertThrows(ConnectException.class, () -> task.put(records(3, 5)));
        assertTrue(failure.getMessage().contains("no_such_queue"), failure.getMessage());
        assertEquals(Map.of(), task.preCommit(Map.of(P0, new OffsetAndMetadata(5))),
                "the worker counts 0..4 as delivered, but none of them is written");
        assertSame(failure, assertThrows(ConnectException.class, () -> task.put(records(5, 6))), "and it stays failed");
    }

    /**
     * A write that waits on PostgreSQL (here: on a lock another session holds) makes the next put
     * hand its records back after the fixed wait, with a message that says the wait is fixed and
     * which settings bound the write itself.
     */
    @Test
    void aWriteStillWaitingHandsTheNextPutBackAfterTheFixedWait() throws Exception {
        try (Connection locker = db.superuser().getConnection(); Statement s = locker.createStatement()) {
            s.execute("select pgque.create_queue('held')");
            PgQueSinkTask task = new PgQueSinkTask();
            task.initialize(new RecordingContext(true));
            task.start(Fixtures.props("connection.url", db.jdbcUrl(), "connection.user", null, "connection.password", null,
                    "pgque.queue", "held", "pgque.payload.format", "string"));
            started.add(task);
            locker.setAutoCommit(false);
            s.execute("lock table pgque.queue in access exclusive mode");
            try {
                task.put(records(0, 3));   // its write now waits for the lock
                RetriableException handedBack = assertThrows(RetriableException.class, () -> task.put(records(3, 5)));
                String message = handedBack.getMessage();
                assertTrue(message.contains("after 2000 ms, the longest a put waits for it (a fixed bound)")
                        && message.contains("delivers these 2 records again in 2000 ms")
                        && message.contains("connection.lock.timeout.ms"), message);
            } finally {
                locker.rollback();
            }
        }
    }
}

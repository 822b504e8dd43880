/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import org.apache.kafka.connect.source.SourceRecord;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;

/**
 * The child JVM of {@link LargeBatchMemoryIT}: one real {@link PgQueSourceTask} reading one
 * slot, with Kafka played by acknowledging every record as soon as poll() returns it. Runs
 * until it has every expected event, in event-id order, and the batch is acked in PostgreSQL;
 * then prints what it saw and exits 0. Anything else (an OutOfMemoryError included, with
 * {@code -XX:+ExitOnOutOfMemoryError}) exits non-zero.
 *
 * <p>Arguments: JDBC URL, queue, consumer, expected event count, {@code pgque.batch.max.events}.
 */
public final class LargeBatchRun {

    private LargeBatchRun() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String queue = args[1];
        String consumer = args[2];
        long expected = Long.parseLong(args[3]);
        Map<String, String> props = Map.of(
                "name", consumer,
                "connection.url", url,
                "pgque.queue", queue,
                "pgque.consumer", consumer,
                "pgque.slots", "1",
                "topic", "out",
                "pgque.batch.max.events", args[4],
                "pgque.metrics.log.interval.ms", "0",
                "pgque.task.index", "0",
                "pgque.task.slots", "0");
        PgQueSourceTask task = new PgQueSourceTask();
        task.start(props);
        long received = 0;
        long lastEventId = Long.MIN_VALUE;
        int largestPoll = 0;
        long deadline = System.nanoTime() + 600_000_000_000L;
        try {
            while (received < expected || batchOpen(url, consumer)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("only " + received + " of " + expected + " events in 10 minutes");
                }
                List<SourceRecord> records = task.poll();
                if (records == null) {
                    continue;
                }
                largestPoll = Math.max(largestPoll, records.size());
                for (SourceRecord record : records) {
                    long eventId = ((Number) record.sourceOffset().get("ev_id")).longValue();
                    if (eventId <= lastEventId) {
                        throw new IllegalStateException("event " + eventId + " came after event " + lastEventId);
                    }
                    lastEventId = eventId;
                    received++;
                    task.commitRecord(record, null);
                }
            }
        } finally {
            task.stop();
        }
        Runtime rt = Runtime.getRuntime();
        System.out.println("received=" + received + " largestPoll=" + largestPoll + " maxHeapMb="
                + rt.maxMemory() / (1024 * 1024));
        System.exit(received == expected ? 0 : 2);
    }

    /** Whether the slot's subscription still has a batch open (not yet acked). */
    private static boolean batchOpen(String url, String consumer) throws Exception {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("select count(*) from pgque.subscription s join pgque.consumer c "
                     + "on c.co_id = s.sub_consumer where c.co_name = pgque.slot_consumer_name(?, 0, 1) "
                     + "and s.sub_batch is not null")) {
            ps.setString(1, consumer);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.Event;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static io.pgque.connect.source.HandDrivenTask.N;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code pgque.failure.policy=pause} in one task driven by hand: an event whose payload is not
 * JSON, under {@code pgque.value.format=json}, between events of its own key. Its key's later
 * events are held back, the other key's are sent; the key stays blocked while the event keeps
 * failing, the metrics say so, and once an operator dead-letters the event the key's held-back
 * events come, in order. An event without a key has nothing to pause and follows
 * {@code errors.tolerance}.
 */
class SourcePauseTaskIT {

    private static final String BAD = "{not json";
    private static QueueFixture pg;
    private final MeteredTasks tasks = new MeteredTasks(pg);

    @BeforeAll
    static void database() {
        pg = new QueueFixture("source_pause_it");
    }

    @AfterEach
    void stopTasks() {
        tasks.close();
    }

    @Test
    void aFailingEventHoldsBackOnlyItsKeyUntilAnOperatorDeadLettersIt() throws Exception {
        String queue = "pause_task";
        String consumer = "pause-task-src";
        subscribe(queue, consumer);
        List<String> keys = pg.keysOnSlot("k", 0, N, 2);
        String a = keys.get(0);
        String b = keys.get(1);
        pg.send(queue, List.of(
                Event.of("t", "{\"n\":0}").withPartitionKey(a),
                Event.of("t", "{\"n\":0}").withPartitionKey(b),
                Event.of("t", BAD).withPartitionKey(a),
                Event.of("t", "{\"n\":2}").withPartitionKey(a),
                Event.of("t", "{\"n\":1}").withPartitionKey(b)));
        pg.tick(queue);
        long badId = pg.queryLong("select ev_id from pgque.event_" + queueId(queue) + " where ev_data = ?", BAD);

        // A short retry, so that the paused event comes back (and fails again) within the test.
        PgQueSourceTask task = tasks.start(queue, consumer, Map.of("pgque.failure.policy", "pause",
                "pgque.failure.retry.ms", "0"));
        List<SourceRecord> first = HandDrivenTask.pollUntilRecords(task);
        assertEquals(List.of("a={n=0}", "b={n=0}", "b={n=1}"), values(first, a), "key a's events after the failing one wait");
        assertEquals(1.0, tasks.metric("events-paused-total"));
        assertEquals(badId, pg.queryLong("select msg_id from pgque.blocked_keys(?, ?) where partition_key = ?",
                queue, consumer, a));
        assertTrue(pg.queryLong("select count(*) from pgque.blocked_keys(?, ?) where reason like "
                + "'cannot become a record: %is not JSON%'", queue, consumer) == 1, "the block says why");

        // The event comes back, fails again, and pauses its key again; b's new events flow meanwhile.
        ack(task, first);
        pg.send(queue, List.of(Event.of("t", "{\"n\":2}").withPartitionKey(b)));
        pg.tick(queue);
        pg.execute("select pgque.maint_retry_events()");
        pg.tick(queue);
        List<String> second = drain(task, a, got -> !got.isEmpty() && pg.queryLong(
                "select retry_count from pgque.blocked_keys(?, ?)", queue, consumer) >= 2);
        assertEquals(List.of("b={n=2}"), second);
        assertEquals(2.0, tasks.metric("events-paused-total"));
        QueueFixture.await("the task's gauges to show the blocked key", Duration.ofSeconds(30),
                () -> tasks.metric("blocked-keys") == 1.0 && tasks.metric("oldest-block-age-ms") > 0);

        // The operator gives up on it: the key resumes, its held-back event first.
        QueueFixture.await("the paused event to wait in the retry queue", Duration.ofSeconds(30), () ->
                pg.queryLong("select count(*) from pgque.blocked_keys(?, ?) where state = 'retrying'", queue, consumer) == 1);
        pg.execute("select pgque.dead_letter_blocked_key('" + queue + "', '" + consumer + "', '" + a + "', 'operator')");
        pg.send(queue, List.of(Event.of("t", "{\"n\":3}").withPartitionKey(a)));
        pg.tick(queue);
        List<String> resumed = drain(task, a, got -> got.size() >= 2);
        assertEquals(List.of("a={n=2}", "a={n=3}"), resumed);
        assertEquals(1, pg.queryLong("select count(*) from pgque.dlq_inspect(?) where ev_id = ?", queue, badId));
        QueueFixture.await("the gauges to show no blocked key", Duration.ofSeconds(30),
                () -> tasks.metric("blocked-keys") == 0.0 && tasks.metric("oldest-block-age-ms") == 0.0);
    }

    @Test
    void anEventWithoutAKeyHasNothingToPauseAndFollowsErrorsTolerance() throws Exception {
        String queue = "pause_keyless";
        String consumer = "pause-keyless-src";
        subscribe(queue, consumer);
        pg.send(queue, List.of(Event.of("t", BAD)));
        pg.tick(queue);
        PgQueSourceTask task = tasks.start(queue, consumer, Map.of("pgque.failure.policy", "pause"));
        ConnectException failure = assertThrows(ConnectException.class, () -> HandDrivenTask.pollUntilFailure(task));
        assertTrue(failure.getMessage().contains("errors.tolerance=all"), failure.getMessage());
        assertEquals(0, pg.queryLong("select count(*) from pgque.blocked_keys(?, ?)", queue, consumer));
    }

    /** Polls, acking what comes, until {@code done} holds of what came and a poll brings nothing; what came, as values. */
    private List<String> drain(PgQueSourceTask task, String a, Predicate<List<String>> done)
            throws InterruptedException {
        List<String> out = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            List<SourceRecord> records = task.poll();
            if (records != null && !records.isEmpty()) {
                out.addAll(values(records, a));
                ack(task, records);
            } else if (done.test(out)) {
                return out;
            }
        }
        throw new AssertionError("still draining after 60 s; got " + out);
    }

    private static List<String> values(List<SourceRecord> records, String a) {
        List<String> out = new ArrayList<>();
        for (SourceRecord record : records) {
            out.add((a.equals(record.key()) ? "a" : "b") + "=" + record.value());
        }
        return out;
    }

    /** Kafka took the records: their batch is acked on a later poll. */
    private static void ack(PgQueSourceTask task, List<SourceRecord> records) {
        records.forEach(r -> task.commitRecord(r, null));
    }

    private static void subscribe(String queue, String consumer) {
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
    }

    private static long queueId(String queue) {
        return pg.queryLong("select queue_id from pgque.queue where queue_name = ?", queue);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.connect.source.config.TaskKeys;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.pgque.connect.source.HandDrivenTask.N;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ticker duty belongs to no single task: with task 0 gone for good, the other task keeps the
 * queue ticking and its slot delivering. The queue's own thresholds are set so high that only
 * the connector's tick period can make a tick, so the test also shows that period is honoured
 * whatever the queue's ticker_max_lag.
 */
class SourceTickerDutyIT {

    private static QueueFixture pg;
    private final List<PgQueSourceTask> running = new ArrayList<>();

    @BeforeAll
    static void database() {
        pg = new QueueFixture("ticker_duty_it");
    }

    @AfterEach
    void stopTasks() {
        running.forEach(PgQueSourceTask::stop);
    }

    @Test
    void ticksAndDeliveriesGoOnWhenTaskZeroFailsForGood() throws Exception {
        String queue = "duty";
        String consumer = "duty-src";
        pg.createQueue(queue);
        pg.execute("select pgque.set_queue_config('duty', 'ticker_max_lag', '1 hour')");
        pg.execute("select pgque.set_queue_config('duty', 'ticker_max_count', '1000000')");
        pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
        List<Map<String, String>> configs = TaskKeys.taskConfigs(connectorProps(queue, consumer), N, true, 2);
        PgQueSourceTask task0 = start(configs.get(0));
        PgQueSourceTask task1 = start(configs.get(1));
        List<String> keys = pg.keysOnSlot("d", 1, N, 2);

        // Both tasks alive: events are ticked and delivered without the test ticking.
        List<SourceRecord> delivered = new ArrayList<>(sendAndReceive(task1, queue, keys, 0));

        // Task 0 fails for good: Connect stops a failed task and never starts it again.
        running.remove(task0);
        task0.stop();
        long tickBefore = pg.queryLong("select max(tick_id) from pgque.tick");
        for (int round = 1; round <= 3; round++) {
            delivered.addAll(sendAndReceive(task1, queue, keys, round * 5));
        }
        assertTrue(pg.queryLong("select max(tick_id) from pgque.tick") >= tickBefore + 3,
                "the surviving task ticked the queue");
        for (String key : keys) {
            List<Object> values = delivered.stream().filter(r -> key.equals(r.key())).map(SourceRecord::value).toList();
            List<Object> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                expected.add(key + ":" + i);
            }
            assertEquals(expected, values, "every event of key " + key + ", in order");
        }
    }

    /** Sends a round without ticking and polls the task until it has all of it. */
    private static List<SourceRecord> sendAndReceive(PgQueSourceTask task, String queue, List<String> keys, int from)
            throws InterruptedException {
        List<io.pgque.client.Event> events = new ArrayList<>();
        for (int i = from; i < from + 5; i++) {
            for (String key : keys) {
                events.add(io.pgque.client.Event.of("test", key + ":" + i).withPartitionKey(key));
            }
        }
        pg.send(queue, events);
        List<SourceRecord> received = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (received.size() < events.size()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + received.size() + " of " + events.size() + " events within 30 s; "
                        + pg.queryLong("select count(*) from pgque.tick") + " ticks, the last at event "
                        + pg.queryLong("select max(tick_event_seq) from pgque.tick") + ", slot 1 at tick "
                        + pg.lastTick(queue, "duty-src", 1) + " with " + pg.pendingEvents(queue, "duty-src", 1)
                        + " pending");
            }
            List<SourceRecord> batch = task.poll();
            if (batch != null) {
                received.addAll(batch);
                batch.forEach(r -> task.commitRecord(r, null));
            }
        }
        return received;
    }

    private static Map<String, String> connectorProps(String queue, String consumer) {
        Map<String, String> props = new HashMap<>(HandDrivenTask.props(pg, queue, consumer, "0"));
        props.remove(TaskKeys.TASK_INDEX);
        props.remove(TaskKeys.TASK_SLOTS);
        props.put("pgque.ticker.enabled", "true");
        props.put("pgque.ticker.interval.ms", "100");
        return props;
    }

    private PgQueSourceTask start(Map<String, String> props) {
        PgQueSourceTask task = HandDrivenTask.start(props);
        running.add(task);
        return task;
    }
}

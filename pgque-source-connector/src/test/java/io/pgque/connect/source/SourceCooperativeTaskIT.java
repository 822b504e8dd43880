/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.Event;
import io.pgque.connect.source.config.TaskKeys;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cooperative tasks driven by hand, in place of the Connect worker: a started task has its
 * worker registered before its first poll, a resting worker wakes on the queue's tick, and the
 * batch of a task that went away undelivered (tasks.max lowered, or the task's worker lost) is
 * taken over by a remaining task after the dead interval, after which the removed task's worker
 * is unregistered.
 */
class SourceCooperativeTaskIT {

    private static QueueFixture pg;
    private final List<PgQueSourceTask> tasks = new ArrayList<>();
    private final ExecutorService pollers = Executors.newCachedThreadPool();

    @BeforeAll
    static void database() {
        pg = new QueueFixture("source_coop_task_it");
    }

    @AfterEach
    void stopTasks() throws InterruptedException {
        pollers.shutdownNow(); // interrupts a poll() waiting for its next pass
        assertTrue(pollers.awaitTermination(1, TimeUnit.MINUTES));
        tasks.forEach(PgQueSourceTask::stop);
    }

    /**
     * With a poll interval of a minute, a worker that found no batch rests a minute; the tick it
     * hears through its LISTEN connection cuts that short. Without the wake-up the batch would
     * come nearly a minute after the tick, so the bound below tells the two apart on any machine.
     */
    @Test
    void restingWorkerReadsAsSoonAsTheQueueTicks() throws Exception {
        String queue = "coop_tick_wake";
        String consumer = "coop-wake";
        pg.createQueue(queue);
        pg.pgque.coopConsumer(queue, consumer, "task-0").register(false);
        pg.send(queue, List.of(Event.of("t", "first").withPartitionKey("k")));
        pg.tick(queue);
        Map<String, String> props = cooperative(queue, consumer, 0);
        props.put("pgque.poll.interval.ms", "60000");
        props.put("pgque.lease.ttl.ms", "180000");
        PgQueSourceTask task = start(props);
        LinkedBlockingQueue<List<SourceRecord>> polled = pollForever(task);
        List<SourceRecord> first = polled.poll(60, TimeUnit.SECONDS);
        assertNotNull(first, "the batch ticked before the start");
        first.forEach(r -> task.commitRecord(r, null));

        // Acking the first batch is followed at once by a receive that finds nothing, and then the
        // worker rests for the poll interval: wait until the ack is in, the worker's connections
        // have been quiet for a second, and the listener is listening.
        QueueFixture.await("the worker to ack, ask again and rest, and to listen", Duration.ofSeconds(60),
                () -> pg.queryLong("select count(*) from pgque.subscription s join pgque.consumer c"
                        + " on c.co_id = s.sub_consumer where c.co_name = ? and s.sub_batch is null",
                        consumer + ".task-0") == 1
                        && pg.queryLong("select count(*) from pg_stat_activity where application_name = ?"
                        + " and (state <> 'idle' or state_change > clock_timestamp() - interval '1 second')",
                        "pgque-source-" + consumer + "-0") == 0
                        && pg.queryLong("select count(*) from pg_stat_activity where application_name = ?"
                        + " and query ilike 'LISTEN%'", "pgque-source-" + consumer + "-0-ticks") == 1);
        pg.send(queue, List.of(Event.of("t", "second").withPartitionKey("k")));
        long ticked = System.nanoTime();
        pg.tick(queue);
        List<SourceRecord> records = polled.poll(40, TimeUnit.SECONDS);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - ticked);
        assertNotNull(records, "the batch did not come within 40 s of the tick: the worker slept through it");
        assertEquals("second", records.get(0).value());
        assertTrue(waitedMs < 40_000, "took " + waitedMs + " ms");
    }

    /**
     * Connect reports a task RUNNING once its start() returned, and whoever waits for that may
     * send at once. The worker is registered by then (the database answering), so what is sent
     * afterwards is the group's, also when the queue ticks before the task's first poll, as a
     * sibling's ticker duty or pg_cron may. A group first registered on that poll started at
     * the newest tick, after these events: they were never delivered.
     */
    @Test
    void eventsSentOnceATaskStartedAreDeliveredThoughTheQueueTicksBeforeItsFirstPoll() throws Exception {
        String queue = "coop_start_registers";
        String consumer = "coop-start";
        pg.createQueue(queue);
        PgQueSourceTask task = start(cooperative(queue, consumer, 0));
        Set<String> sent = new TreeSet<>();
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            sent.add("early-" + i);
            events.add(Event.of("t", "early-" + i).withPartitionKey("k" + i));
        }
        pg.send(queue, events);
        pg.tick(queue);

        awaitDelivered("the events sent after start()", task, sent, Duration.ofSeconds(30));
        assertEquals(List.of(consumer, consumer + ".task-0"), members(queue, consumer));
    }

    /**
     * Two tasks; the second takes a batch and stops before Kafka has it (its task is removed by
     * a lower tasks.max and never comes back). The remaining task takes the batch over once the
     * removed one has been silent for the dead interval (pgque.lease.ttl.ms), so every event
     * reaches Kafka and the group's cursor is not held back.
     */
    @Test
    void batchOfARemovedTaskIsTakenOverAfterTheDeadInterval() throws Exception {
        String queue = "coop_removed_task";
        String consumer = "coop-removed";
        pg.createQueue(queue);
        pg.pgque.coopConsumer(queue, consumer, "task-0").register(false);
        Set<String> sent = new TreeSet<>();
        for (int batch = 0; batch < 3; batch++) {
            List<Event> events = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String value = "b" + batch + "-" + i;
                sent.add(value);
                events.add(Event.of("t", value).withPartitionKey("k" + i));
            }
            pg.send(queue, events);
            pg.tick(queue);
        }

        PgQueSourceTask removed = start(cooperative(queue, consumer, 1));
        List<SourceRecord> stranded = HandDrivenTask.pollUntilRecords(removed);
        assertEquals(5, stranded.size(), "one whole batch");
        tasks.remove(removed);
        removed.stop(); // Kafka never acknowledged it: the batch stays with worker task-1
        assertEquals(1, pg.queryLong("select count(*) from pgque.subscription s join pgque.consumer c"
                + " on c.co_id = s.sub_consumer where c.co_name = ? and s.sub_batch is not null",
                consumer + ".task-1"), "the removed task's batch is still open");

        PgQueSourceTask remaining = start(cooperative(queue, consumer, 0));
        awaitDelivered("every event through the remaining task", remaining, sent, Duration.ofSeconds(120));
        QueueFixture.await("the taken-over batch to be acked", Duration.ofSeconds(60), () -> {
            try {
                remaining.poll();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return pg.queryLong("select count(*) from pgque.subscription s join pgque.consumer c"
                    + " on c.co_id = s.sub_consumer where c.co_name like ? and s.sub_batch is not null",
                    consumer + ".%") == 0;
        });
        assertEquals(pg.queryLong("select max(tick_id) from pgque.tick t join pgque.queue q on q.queue_id = t.tick_queue"
                + " where q.queue_name = ?", queue), pg.queryLong("select s.sub_last_tick from pgque.subscription s"
                + " join pgque.consumer c on c.co_id = s.sub_consumer where c.co_name = ?", consumer),
                "the group's cursor is at the newest tick");

        // The next start of task 0 (as on Connect's next reconfiguration) unregisters the removed
        // task's worker, idle now, as it sets the task up; the live worker stays.
        tasks.remove(remaining);
        remaining.stop();
        start(cooperative(queue, consumer, 0));
        assertEquals(List.of(consumer, consumer + ".task-0"), members(queue, consumer));
    }

    /**
     * Polls {@code task} as Connect would, acknowledging every record at once, until exactly the
     * values {@code sent} were delivered.
     */
    private static void awaitDelivered(String what, PgQueSourceTask task, Set<String> sent, Duration timeout)
            throws InterruptedException {
        Set<String> delivered = new TreeSet<>();
        try {
            QueueFixture.await(what + " to be delivered", timeout, () -> {
                try {
                    List<SourceRecord> records = task.poll();
                    if (records != null) {
                        records.forEach(r -> {
                            delivered.add((String) r.value());
                            task.commitRecord(r, null);
                        });
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return delivered.equals(sent);
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; delivered " + delivered + " of " + sent, e);
        }
    }

    private static List<String> members(String queue, String consumer) {
        List<String> names = new ArrayList<>();
        pg.pgque.queues().consumerInfo(queue).forEach(info -> names.add(info.consumerName()));
        names.removeIf(name -> !name.equals(consumer) && !name.startsWith(consumer + "."));
        names.sort(String::compareTo);
        return names;
    }

    /** Task {@code task} of a cooperative connector whose tasks.max is {@code task + 1}. */
    private static Map<String, String> cooperative(String queue, String consumer, int task) {
        Map<String, String> props = HandDrivenTask.props(pg, queue, consumer, "0");
        props.remove("pgque.slots");
        props.remove(TaskKeys.TASK_SLOTS);
        props.put("pgque.mode", "cooperative");
        props.put(TaskKeys.TASK_INDEX, Integer.toString(task));
        props.put(TaskKeys.TASK_COUNT, Integer.toString(task + 1));
        return props;
    }

    private PgQueSourceTask start(Map<String, String> props) {
        PgQueSourceTask task = HandDrivenTask.start(props);
        tasks.add(task);
        return task;
    }

    /** Polls on a thread of its own, as Connect does, handing over every non-empty result. */
    private LinkedBlockingQueue<List<SourceRecord>> pollForever(PgQueSourceTask task) {
        LinkedBlockingQueue<List<SourceRecord>> results = new LinkedBlockingQueue<>();
        Future<?> ignored = pollers.submit(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                List<SourceRecord> records = task.poll();
                if (records != null && !records.isEmpty()) {
                    results.add(records);
                }
            }
            return null;
        });
        return results;
    }
}

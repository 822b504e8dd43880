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

import static io.pgque.connect.source.HandDrivenTask.N;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One event whose payload is not JSON, under {@code pgque.value.format=json}, in the middle of
 * a batch and between events of its own key. With {@code errors.tolerance=none} the task fails
 * and says which event; with {@code all} that event goes to the engine's dead letters with the
 * reason and everything else of the batch, including the later events of the same key, is
 * delivered in order and acked.
 */
class SourceUnreadablePayloadIT {

    private static final String BAD = "{not json";
    private static QueueFixture pg;
    private final MeteredTasks tasks = new MeteredTasks(pg);

    @BeforeAll
    static void database() {
        pg = new QueueFixture("source_unreadable_it");
    }

    @AfterEach
    void stopTasks() {
        tasks.close();
    }

    @Test
    void toleranceNoneFailsTheTaskNamingQueueConsumerSlotAndEvent() throws Exception {
        String queue = "unreadable_none";
        String consumer = "unreadable-none-src";
        long badId = prepare(queue, consumer);
        assertFailsEveryStartNaming(queue, consumer, Map.of(), "slot 0", badId);
    }

    /** Fails, and again after a restart (nothing was skipped), naming where the event is; dead-letters nothing. */
    private void assertFailsEveryStartNaming(String queue, String consumer, Map<String, String> props, String reader,
                                             long badId) throws InterruptedException {
        for (int attempt = 0; attempt < 2; attempt++) {
            PgQueSourceTask task = tasks.start(queue, consumer, props);
            ConnectException failure = assertThrows(ConnectException.class, () -> HandDrivenTask.pollUntilFailure(task));
            String message = failure.getMessage();
            for (String part : List.of("queue '" + queue + "'", "consumer '" + consumer + "'", reader,
                    "event " + badId + " ", "errors.tolerance=all")) {
                assertTrue(message.contains(part), "'" + part + "' missing from: " + message);
            }
            tasks.stop(task);
        }
        assertEquals(0, deadLetters(queue), "nothing dead-lettered without errors.tolerance=all");
    }

    @Test
    void toleranceAllDeadLettersTheEventAndDeliversTheRestOfTheBatchInOrder() throws Exception {
        String queue = "unreadable_all";
        String consumer = "unreadable-all-src";
        long badId = prepare(queue, consumer);
        List<String> keys = pg.keysOnSlot("k", 0, N, 2);

        PgQueSourceTask task = tasks.start(queue, consumer, Map.of("errors.tolerance", "all", "errors.log.enable", "true"));
        List<SourceRecord> records = HandDrivenTask.pollUntilRecords(task);
        List<String> values = new ArrayList<>();
        for (SourceRecord record : records) {
            values.add((record.key().equals(keys.get(0)) ? "a" : "b") + "=" + record.value());
        }
        assertEquals(List.of("a={n=0}", "b={n=0}", "a={n=2}", "b={n=1}"), values,
                "every other event of the batch, in order, the bad one's key included");
        assertEquals(1, deadLetters(queue));
        assertEquals(badId, pg.queryLong("select d.ev_id from pgque.dead_letter d join pgque.queue q "
                + "on q.queue_id = d.dl_queue_id where q.queue_name = ?", queue));
        assertTrue(pg.queryLong("select count(*) from pgque.dead_letter d join pgque.queue q on q.queue_id = d.dl_queue_id"
                + " where q.queue_name = ? and d.dl_reason like 'unreadable payload: %is not JSON%'", queue) == 1,
                "the dead letter says why");
        assertEquals(1.0, tasks.metric("events-dead-lettered-total"));

        // Kafka takes the four records: the batch is acked, the slot moves on.
        long tickBefore = pg.lastTick(queue, consumer, 0);
        records.forEach(r -> task.commitRecord(r, null));
        QueueFixture.await("the batch to be acked", Duration.ofSeconds(60), () -> {
            try {
                task.poll();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return pg.lastTick(queue, consumer, 0) > tickBefore;
        });
    }

    /** Cooperative mode, tolerance none: the worker's task fails naming the event, and again after a restart. */
    @Test
    void cooperativeToleranceNoneFailsTheTaskNamingQueueConsumerWorkerAndEvent() throws Exception {
        String queue = "unreadable_coop_none";
        String consumer = "unreadable-coop-none-src";
        long badId = prepareCooperative(queue, consumer);
        assertFailsEveryStartNaming(queue, consumer, cooperative(Map.of()), "worker 'task-0'", badId);
    }

    /** Cooperative mode, tolerance all: the event goes to the dead letters, the rest of the batch on, in order. */
    @Test
    void cooperativeToleranceAllDeadLettersTheEventAndDeliversTheRestOfTheBatch() throws Exception {
        String queue = "unreadable_coop_all";
        String consumer = "unreadable-coop-all-src";
        long badId = prepareCooperative(queue, consumer);

        PgQueSourceTask task = tasks.start(queue, consumer, cooperative(Map.of("errors.tolerance", "all")));
        List<SourceRecord> records = HandDrivenTask.pollUntilRecords(task);
        List<String> values = new ArrayList<>();
        for (SourceRecord record : records) {
            values.add(record.key() + "=" + record.value());
        }
        assertEquals(List.of("a={n=0}", "b={n=0}", "a={n=2}", "b={n=1}"), values, "every other event of the batch");
        assertEquals(1, deadLetters(queue));
        assertEquals(badId, pg.queryLong("select d.ev_id from pgque.dead_letter d join pgque.queue q "
                + "on q.queue_id = d.dl_queue_id where q.queue_name = ? and d.dl_reason like "
                + "'unreadable payload: %is not JSON%'", queue));
        assertEquals(1.0, tasks.metric("events-dead-lettered-total"));

        records.forEach(r -> task.commitRecord(r, null));
        QueueFixture.await("the batch to be acked", Duration.ofSeconds(60), () -> {
            try {
                task.poll();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return pg.queryLong("select count(*) from pgque.subscription s join pgque.consumer c"
                    + " on c.co_id = s.sub_consumer where c.co_name = ? and s.sub_batch is null", consumer + ".task-0")
                    == 1;
        });
        assertEquals(0, pg.queryLong("select count(*) from pgque.retry_queue r join pgque.queue q"
                + " on q.queue_id = r.ev_queue where q.queue_name = ?", queue), "nothing left to come back");
    }

    private static Map<String, String> cooperative(Map<String, String> extra) {
        Map<String, String> props = new java.util.HashMap<>(extra);
        props.put("pgque.mode", "cooperative");
        return props;
    }

    /** The same five events as {@link #prepare}, for a cooperative consumer; keys a and b. */
    private static long prepareCooperative(String queue, String consumer) {
        pg.createQueue(queue);
        pg.pgque.coopConsumer(queue, consumer, "task-0").register(false);
        return sendFive(queue, "a", "b");
    }

    /** Events of keys a and b on slot 0 in one batch, the third of them unreadable; returns its id. */
    private static long prepare(String queue, String consumer) {
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
        List<String> keys = pg.keysOnSlot("k", 0, N, 2);
        return sendFive(queue, keys.get(0), keys.get(1));
    }

    private static long sendFive(String queue, String a, String b) {
        pg.send(queue, List.of(
                Event.of("t", "{\"n\":0}").withPartitionKey(a),
                Event.of("t", "{\"n\":0}").withPartitionKey(b),
                Event.of("t", BAD).withPartitionKey(a),
                Event.of("t", "{\"n\":2}").withPartitionKey(a),
                Event.of("t", "{\"n\":1}").withPartitionKey(b)));
        pg.tick(queue);
        return pg.queryLong("select ev_id from pgque." + eventTable(queue) + " where ev_data = ?", BAD);
    }

    private static String eventTable(String queue) {
        long id = pg.queryLong("select queue_id from pgque.queue where queue_name = ?", queue);
        return "event_" + id;
    }

    private static long deadLetters(String queue) {
        return pg.queryLong("select count(*) from pgque.dead_letter d join pgque.queue q on q.queue_id = d.dl_queue_id"
                + " where q.queue_name = ?", queue);
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.SlotConsumer;
import io.pgque.connect.source.config.EventHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static io.pgque.connect.source.HandDrivenTask.N;
import static io.pgque.connect.source.HandDrivenTask.assertFirstDeliveriesInSendOrder;
import static io.pgque.connect.source.HandDrivenTask.pollUntilRecords;
import static io.pgque.connect.source.HandDrivenTask.sendRound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The task's lease loop against a real PostgreSQL, driven by hand in place of the Connect
 * worker, so the moments that matter (Kafka acknowledging, a lease running out, another worker
 * taking over) can be placed exactly.
 */
class SourceTaskLeaseLoopIT {

    private static QueueFixture pg;
    private final List<PgQueSourceTask> tasks = new ArrayList<>();

    @BeforeAll
    static void database() {
        pg = new QueueFixture("source_task_it");
    }

    @AfterEach
    void stopTasks() {
        tasks.forEach(PgQueSourceTask::stop);
    }

    @Test
    void aFencedTaskDoesNotAckAndTheSlotsEventsComeAgainInOrder() throws Exception {
        String queue = "fenced";
        String consumer = "fenced-src";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
        List<String> keys = pg.keysOnSlot("k", 0, N, 3);
        sendRound(pg, queue, keys, 0);

        PgQueSourceTask zombie = start(queue, consumer, "0");
        List<SourceRecord> first = pollUntilRecords(zombie);
        assertEquals(15, first.size());
        long batch = header(first.get(0), EventHeaders.BATCH_ID);
        long zombieEpoch = header(first.get(0), EventHeaders.EPOCH);
        long tickBefore = pg.lastTick(queue, consumer, 0);

        // The task stalls (no poll) past its 1 s TTL; another worker takes the slot over and
        // starts on the same open batch.
        QueueFixture.await("the zombie's lease to run out", Duration.ofSeconds(10),
                () -> pg.leaseOwner(queue, consumer, 0) == null);
        SlotConsumer heir = pg.pgque.slotConsumer(queue, consumer, N, "heir");
        long heirEpoch = heir.slot(0).claim(Duration.ofSeconds(1)).orElseThrow().epoch();
        assertEquals(zombieEpoch + 1, heirEpoch);
        assertEquals(batch, heir.slot(0).receive().orElseThrow().batchId(), "the heir is given the same open batch");

        // Kafka now acknowledges the zombie's records; its next poll must not ack the batch.
        first.forEach(r -> commit(zombie, r));
        assertNull(zombie.poll(), "fenced: nothing to emit, the heir's lease is live");
        assertEquals(tickBefore, pg.lastTick(queue, consumer, 0), "the fenced task did not ack");

        // The heir dies too. The former zombie claims the slot again (a new epoch) and delivers
        // the still-unacked batch again, then the next one: a replayed suffix, in order.
        sendRound(pg, queue, keys, 5);
        List<SourceRecord> delivered = new ArrayList<>(first);
        List<SourceRecord> again = pollUntilRecords(zombie);
        assertEquals(batch, header(again.get(0), EventHeaders.BATCH_ID));
        assertEquals(heirEpoch + 1, header(again.get(0), EventHeaders.EPOCH));
        again.forEach(r -> commit(zombie, r));
        delivered.addAll(again);
        List<SourceRecord> next = pollUntilRecords(zombie);
        next.forEach(r -> commit(zombie, r));
        delivered.addAll(next);

        assertFirstDeliveriesInSendOrder(delivered, keys, 10);
        assertTrue(pg.lastTick(queue, consumer, 0) > tickBefore, "acked after taking the slot back");
    }

    @Test
    void stopAcksWhatKafkaHasAndReleasesTheSlotsAtOnce() throws Exception {
        String queue = "stopping";
        String consumer = "stopping-src";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
        List<String> keys = pg.keysOnSlot("s", 1, N, 2);
        sendRound(pg, queue, keys, 0);

        PgQueSourceTask task = start(queue, consumer, "0,1");
        List<SourceRecord> records = pollUntilRecords(task);
        long tickBefore = pg.lastTick(queue, consumer, 1);
        records.forEach(r -> commit(task, r));
        tasks.remove(task);
        task.stop();

        assertTrue(pg.lastTick(queue, consumer, 1) > tickBefore, "the delivered batch was acked on stop");
        assertNull(pg.leaseOwner(queue, consumer, 0), "slot 0 released");
        assertNull(pg.leaseOwner(queue, consumer, 1), "slot 1 released");
        // A successor can claim at once instead of waiting out the TTL.
        assertNotNull(pg.pgque.slotConsumer(queue, consumer, N, "successor").slot(1).claim(Duration.ofSeconds(5))
                .orElse(null));
    }

    @Test
    void aSlotWhoseBatchesKafkaTakesAtOnceDoesNotStarveTheOthers() throws Exception {
        String queue = "turns";
        String consumer = "turns-src";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
        List<String> keys = new ArrayList<>(pg.keysOnSlot("t", 0, N, 2));
        keys.addAll(pg.keysOnSlot("t", 1, N, 2));
        int rounds = 4;
        for (int round = 0; round < rounds; round++) {
            sendRound(pg, queue, keys, round * 5);
        }

        // Both slots always have a batch ready, and every batch is in Kafka before the next
        // poll: the slot just acked must not be served again ahead of the one waiting. One tick
        // per batch (no catch-up window), so that there are many batches to take turns with.
        Map<String, String> props = HandDrivenTask.props(pg, queue, consumer, "0,1");
        props.put("pgque.batch.catchup.max.events", "0");
        PgQueSourceTask task = start(props);
        List<Long> served = new ArrayList<>();
        for (int poll = 0; poll < 2 * rounds; poll++) {
            List<SourceRecord> batch = pollUntilRecords(task);
            served.add(header(batch.get(0), EventHeaders.SLOT));
            batch.forEach(r -> commit(task, r));
        }
        for (int i = 1; i < served.size(); i++) {
            assertNotEquals(served.get(i - 1), served.get(i), "slots served in turn, got " + served);
        }
    }

    @Test
    void aSlotBehindSeveralTicksCatchesUpInOneBatchAndWithoutTheWindowInOneBatchPerTick() throws Exception {
        String queue = "behind";
        pg.createQueue(queue);
        List<String> keys = pg.keysOnSlot("b", 0, N, 2);
        for (String consumer : List.of("behind-window", "behind-tick")) {
            pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
        }
        int rounds = 4;
        for (int round = 0; round < rounds; round++) {
            sendRound(pg, queue, keys, round * 5);
        }

        PgQueSourceTask windowed = start(queue, "behind-window", "0");
        List<SourceRecord> caughtUp = pollUntilRecords(windowed);
        assertEquals(rounds * 5 * keys.size(), caughtUp.size(), "four ticks behind: one batch holds them all");
        assertEquals(1, caughtUp.stream().map(r -> header(r, EventHeaders.BATCH_ID)).distinct().count());
        HandDrivenTask.assertFirstDeliveriesInSendOrder(caughtUp, keys, rounds * 5);

        Map<String, String> props = HandDrivenTask.props(pg, queue, "behind-tick", "0");
        props.put("pgque.batch.catchup.max.events", "0");
        PgQueSourceTask perTick = start(props);
        assertEquals(5 * keys.size(), pollUntilRecords(perTick).size(), "no window: one tick per batch");
    }

    /**
     * A slot behind by batches larger than a chunk reads each batch after the first in one scan
     * of its window (opened straight into a cursor), not two (a first page, then a cursor over the
     * rest): counted by the engine's window scans ({@code pgque.window_scan_sql}). Every event
     * comes once, in send order, and every batch is acked.
     */
    @Test
    void aSlotBehindByLargeBatchesReadsEachAfterTheFirstInOneScan() throws Exception {
        Map<String, Long> calls = drainThreeLargeBatches("one_scan", Map.of("pgque.batch.read.ahead", "false"));
        assertEquals(4, calls.get("window_scan_sql"),
                "batch 1: a first page and a cursor over its rest; batches 2 and 3: one cursor each");
        assertEquals(0, calls.get("open_read_ahead_partitioned"));
    }

    /**
     * With read-ahead, each batch after the first is read while the one before it is out, and
     * opened as read once that one is acked: still one scan per batch, every event once, in order.
     * (The lease TTL is long here: a read-ahead the poll waits longer than a third of it for is
     * given up, and the batch received the usual way, which on a loaded machine would change the
     * count.)
     */
    @Test
    void aSlotBehindReadsEachNextBatchAheadAndOpensItAsRead() throws Exception {
        Map<String, Long> calls = drainThreeLargeBatches("read_ahead", Map.of("pgque.lease.ttl.ms", "60000"));
        assertEquals(2, calls.get("open_read_ahead_partitioned"), "batches 2 and 3 were opened as read ahead");
        assertEquals(4, calls.get("window_scan_sql"),
                "batch 1: a first page and a cursor over its rest; batches 2 and 3: one read-ahead each, in one "
                        + "query (10 events fit three chunks of 4)");
    }

    /**
     * A slot that keeps up, with batches smaller than a chunk, reads nothing ahead: its next batch
     * comes with the ack in one round trip anyway, and a read-ahead would nearly always find no
     * next tick yet. One scan per batch, the first page, which holds all of it.
     */
    @Test
    void aSlotWithBatchesSmallerThanAChunkReadsNothingAhead() throws Exception {
        Map<String, Long> calls = drainThreeLargeBatches("small_batches", Map.of("pgque.batch.max.events", "1000"));
        assertEquals(0, calls.get("read_ahead_after_query"), "no read-ahead");
        assertEquals(0, calls.get("open_read_ahead_partitioned"));
        assertEquals(3, calls.get("window_scan_sql"), "a first page per batch, holding all of it");
    }

    /**
     * Three ticks of 10 events of slot 0 each, drained by a task with chunks of 4 (unless
     * {@code extra} says otherwise) and one tick per batch: checks every event came once in send order and every batch was acked, and returns how
     * often the task's sessions called the engine's window scan, the read-ahead query and open.
     */
    private Map<String, Long> drainThreeLargeBatches(String queue, Map<String, String> extra) throws Exception {
        String consumer = queue + "-src";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
        List<String> keys = pg.keysOnSlot("s", 0, N, 2);
        int rounds = 3;
        for (int round = 0; round < rounds; round++) {
            sendRound(pg, queue, keys, round * 5); // 10 events of slot 0 per tick
        }
        trackFunctions("'pl'");
        long scansBefore = functionCalls("window_scan_sql");
        long opensBefore = functionCalls("open_read_ahead_partitioned");
        long readAheadsBefore = functionCalls("read_ahead_after_query");
        try {
            Map<String, String> props = HandDrivenTask.props(pg, queue, consumer, "0");
            props.put("pgque.batch.max.events", "4");
            props.put("pgque.batch.catchup.max.events", "0"); // one tick, one batch of 10
            props.putAll(extra);
            PgQueSourceTask task = start(props);
            List<SourceRecord> delivered = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (delivered.size() < rounds * 10 && System.nanoTime() < deadline) {
                List<SourceRecord> records = task.poll();
                if (records != null) {
                    records.forEach(r -> commit(task, r));
                    delivered.addAll(records);
                }
            }
            assertEquals(rounds * 10, delivered.size(), "every event once");
            assertFirstDeliveriesInSendOrder(delivered, keys, rounds * 5);
            assertEquals(rounds, delivered.stream().map(r -> header(r, EventHeaders.BATCH_ID)).distinct().count(),
                    "one batch per tick");
            long lastTick = pg.queryLong("select max(t.tick_id) from pgque.tick t join pgque.queue q "
                    + "on q.queue_id = t.tick_queue where q.queue_name = ?", queue);
            QueueFixture.await("every batch to be acked", Duration.ofSeconds(15), () -> {
                pollOnce(task);
                return pg.lastTick(queue, consumer, 0) == lastTick;
            });
            task.stop();
            awaitSessionsEnded();
            return Map.of("window_scan_sql", functionCalls("window_scan_sql") - scansBefore,
                    "open_read_ahead_partitioned", functionCalls("open_read_ahead_partitioned") - opensBefore,
                    "read_ahead_after_query", functionCalls("read_ahead_after_query") - readAheadsBefore);
        } finally {
            trackFunctions("default");
        }
    }

    @Test
    void anIdleSlotPollsEveryIntervalUntilTheTaskHearsATick() throws Exception {
        long receives = idleReceives("deaf", false, false);
        // about one per 100 ms poll interval over the 3 s: the listener has heard nothing yet
        assertTrue(receives >= 15, "an idle slot polls every interval while no tick is heard: " + receives);
    }

    @Test
    void anIdleSlotWaitsForTheTicksOnceTheTaskHearsThem() throws Exception {
        long receives = idleReceives("hearing", true, false);
        // the looks until the task listened, the tick's, and a renewal every 2 s (a third of the
        // 6 s TTL): a handful where polling every interval makes some thirty
        assertTrue(receives <= 10, "an idle slot that hears the ticks waits for them: " + receives);
    }

    @Test
    void anIdleSlotPollsAgainWhenTheTickListenerLosesItsConnection() throws Exception {
        long receives = idleReceives("listener_lost", true, true);
        assertTrue(receives >= 15, "after the listener's connection was lost, polling every interval: " + receives);
    }

    /**
     * How often an idle slot (no events at all) asked the engine for a batch, 3 s of polls included:
     * after a tick its task heard ({@code tick}), and after the tick listener's session was
     * killed once it had heard that tick ({@code killListener}).
     */
    private long idleReceives(String queue, boolean tick, boolean killListener) throws Exception {
        String consumer = queue + "-src";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
        trackFunctions("'pl'");
        long receivesBefore = functionCalls("receive_partitioned");
        try {
            Map<String, String> props = HandDrivenTask.props(pg, queue, consumer, "0");
            props.put("name", queue);
            props.put("pgque.lease.ttl.ms", "6000"); // renewals every 2 s
            PgQueSourceTask task = start(props);
            String listener = "select count(*) from pg_stat_activity where application_name = 'pgque-source-" + queue
                    + "-0-ticks' and query ilike 'listen%'";
            QueueFixture.await("the task to listen for ticks", Duration.ofSeconds(15), () -> {
                pollOnce(task);
                return pg.queryLong(listener) == 1;
            });
            if (tick) {
                pg.tick(queue);
                // heard within a poll or two; then the slot rests until a tick or its renewal
                pollFor(task, Duration.ofMillis(500));
            }
            if (killListener) {
                pg.queryLong("select count(*) from (select pg_terminate_backend(pid) from pg_stat_activity "
                        + "where application_name = 'pgque-source-" + queue + "-0-ticks') t");
            }
            pollFor(task, Duration.ofSeconds(3));
            task.stop();
            awaitSessionsEnded();
            return functionCalls("receive_partitioned") - receivesBefore;
        } finally {
            trackFunctions("default");
        }
    }

    /** Polls {@code task} as the worker would, for {@code how long}, committing what it returns. */
    private static void pollFor(PgQueSourceTask task, Duration howLong) throws InterruptedException {
        long deadline = System.nanoTime() + howLong.toNanos();
        while (System.nanoTime() < deadline) {
            List<SourceRecord> records = task.poll();
            if (records != null) {
                records.forEach(r -> commit(task, r));
            }
        }
    }

    /** A session hands its function counts over when it ends. */
    private static void awaitSessionsEnded() throws InterruptedException {
        QueueFixture.await("the task's sessions to end", Duration.ofSeconds(15), () -> pg.queryLong(
                "select count(*) from pg_stat_activity where datname = current_database() "
                        + "and application_name like 'pgque-source-%'") == 0);
    }

    private static long functionCalls(String function) {
        return pg.queryLong("select coalesce(sum(calls), 0) from pg_stat_user_functions "
                + "where schemaname = 'pgque' and funcname = ?", function);
    }

    /** Sets track_functions for the sessions opened from now on (the tasks' pools). */
    private static void trackFunctions(String value) {
        pg.execute("do $$ begin execute format('alter database %I set track_functions = " + value.replace("'", "''")
                + "', current_database()); end $$");
    }

    private static void pollOnce(PgQueSourceTask task) {
        try {
            task.poll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aWaitingSlotReadsItsBatchOnTheTickNotAtTheEndOfItsPollInterval() throws Exception {
        String queue = "woken";
        String consumer = "woken-src";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, consumer, N, "setup").subscribe();
        List<String> keys = pg.keysOnSlot("w", 0, N, 2);
        Map<String, String> props = HandDrivenTask.props(pg, queue, consumer, "0");
        props.put("pgque.poll.interval.ms", "30000");
        props.put("pgque.lease.ttl.ms", "90000");
        PgQueSourceTask task = start(props);
        int from = 0;
        sendRound(pg, queue, keys, from);
        pollUntilRecords(task).forEach(r -> commit(task, r));

        // Kafka has that batch, and no tick came since it was opened: the next poll keeps it open
        // for the next tick, which it waits for (its poll interval is 30 s), and then acks it and
        // reads the next batch in one call. Until the task hears ticks, though (its LISTEN may
        // take effect after the first tick, and the first tick it hears may come after the batch
        // was opened), a delivered batch is acked at once and that poll rests with nothing: the
        // next round's batch is the one that waits.
        for (int attempt = 0; attempt < 3; attempt++) {
            long tickBefore = pg.lastTick(queue, consumer, 0);
            FutureTask<List<SourceRecord>> next = new FutureTask<>(task::poll);
            Thread pollThread = new Thread(next, "poll");
            pollThread.start();
            try {
                QueueFixture.await("poll() to wait", Duration.ofSeconds(15),
                        () -> pollThread.getState() == Thread.State.TIMED_WAITING);
                boolean waitedForTheTick = pg.lastTick(queue, consumer, 0) == tickBefore;
                from += 5;
                sendRound(pg, queue, keys, from);
                // A poll resting without ticks heard wakes at its 30 s interval at the latest.
                List<SourceRecord> records = next.get(waitedForTheTick ? 20 : 45, TimeUnit.SECONDS);
                if (!waitedForTheTick) {
                    (records != null && !records.isEmpty() ? records : pollUntilRecords(task))
                            .forEach(r -> commit(task, r));
                    continue;
                }
                assertNotNull(records, "the batch came with the tick, not after the 30 s poll interval");
                assertEquals(10, records.size());
                assertTrue(pg.lastTick(queue, consumer, 0) > tickBefore, "the first batch acked with the tick's receive");
                return;
            } finally {
                pollThread.interrupt();
            }
        }
        fail("a delivered batch never waited for the next tick to be acked");
    }

    private PgQueSourceTask start(String queue, String consumer, String slots) {
        return start(HandDrivenTask.props(pg, queue, consumer, slots));
    }

    private PgQueSourceTask start(Map<String, String> props) {
        PgQueSourceTask task = HandDrivenTask.start(props);
        tasks.add(task);
        return task;
    }

    private static void commit(PgQueSourceTask task, SourceRecord record) {
        task.commitRecord(record, null);
    }

    private static long header(SourceRecord record, String name) {
        return ((Number) record.headers().lastWithName(name).value()).longValue();
    }
}

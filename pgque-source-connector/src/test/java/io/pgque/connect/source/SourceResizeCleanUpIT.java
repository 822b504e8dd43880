/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.ResizeState;
import io.pgque.connect.source.config.TaskKeys;
import io.pgque.connect.source.reader.ConnectorScans;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

import static io.pgque.connect.source.HandDrivenTask.sendRound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a task reads ahead with goes when the slot set it belongs to does: the windows it shares
 * with the connector's other tasks in the worker (their {@link ConnectorScans}) and its read-ahead
 * thread; and when the task stops, its hold on that sharing. One task is driven by hand as Connect would run it through two resizes,
 * 4 → 2 → 4 slots (stopped and started again with the new N, then draining its old slots until it
 * switches to the new set by itself), and stopped at the end. A set the switch retired must leave
 * nothing behind: windows left under its N would make the next set of that N scan for slots
 * nobody reads, and its thread would never end.
 */
class SourceResizeCleanUpIT {

    private static final String QUEUE = "resize_clean_up";
    private static final String CONNECTOR = QUEUE + "-src";
    /** A chunk smaller than a slot's batch of one round, so every batch is read ahead of. */
    private static final int CHUNK = 10;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private static QueueFixture pg;
    private final List<String> keys = new ArrayList<>();
    private final List<PgQueSourceTask> started = new ArrayList<>();
    private int rounds;

    @BeforeAll
    static void database() {
        pg = new QueueFixture("resize_clean_up_it");
    }

    @AfterEach
    void stopTasks() {
        started.forEach(PgQueSourceTask::stop);
    }

    @Test
    void aResizedAwaySetAndAStoppedTaskLeaveNoSharedWindowsAndNoReadAheadThread() throws Exception {
        pg.createQueue(QUEUE);
        for (int i = 0; i < 20; i++) {
            keys.add("key-" + i);
        }

        PgQueSourceTask four = start(4);
        send(2);
        drive(four, "caught up at N=4", () -> caughtUp(4));
        assertEquals(Map.of(4, Set.of(0, 1, 2, 3)), shared(), "the task's slots read through the shared windows");
        send(3); // for the old set of the resize to drain
        stop(four);
        assertNothingLeft("after the stop at N=4");

        PgQueSourceTask two = start(2);
        assertOldSetLeavesNothing(two, 4, 2, 1);
        send(2);
        drive(two, "caught up at N=2", () -> caughtUp(2));
        assertTrue(readAheadThreads("-n2"), "the new set reads ahead");
        send(3);
        stop(two);
        assertNothingLeft("after the stop at N=2");

        PgQueSourceTask fourAgain = start(4);
        assertOldSetLeavesNothing(fourAgain, 2, 4, 2);
        send(2);
        drive(fourAgain, "caught up at N=4 again", () -> caughtUp(4));
        stop(fourAgain);
        assertNothingLeft("after the last stop");
    }

    /**
     * Drives {@code task}, just started with {@code newN}, through the drain of its old set until it
     * completed the resize and switched; then the old set's windows are gone at once (the switch
     * runs on the polling thread), and its read-ahead thread, which the drain is seen to start,
     * ends soon after (it may finish a read first).
     */
    private void assertOldSetLeavesNothing(PgQueSourceTask task, int oldN, int newN, long epoch) throws Exception {
        boolean[] oldSetReadAhead = {false};
        drive(task, "the resize from " + oldN + " to " + newN, () -> {
            oldSetReadAhead[0] |= readAheadThreads("-n" + oldN);
            return resized(newN, epoch);
        });
        assertTrue(oldSetReadAhead[0], "the old set read ahead while it drained");
        assertEquals(Map.of(newN, newN == 2 ? Set.of(0, 1) : Set.of(0, 1, 2, 3)), shared(),
                "only the new set's slots read through the shared windows");
        QueueFixture.await("the old set's read-ahead thread to end", DEADLINE, () -> !readAheadThreads("-n" + oldN));
    }

    private void assertNothingLeft(String when) throws InterruptedException {
        assertEquals(Map.of(), shared(), "no shared windows " + when);
        assertFalse(ConnectorScans.held(CONNECTOR, pg.jdbcUrl()), "no task holds the connector's scan sharing " + when);
        QueueFixture.await("no read-ahead thread " + when, DEADLINE, () -> !readAheadThreads(""));
    }

    /** Task 0 of 1, reading every slot of {@code n}, as Connect starts it after a change of pgque.slots. */
    private PgQueSourceTask start(int n) {
        Map<String, String> props = HandDrivenTask.props(pg, QUEUE, CONNECTOR, n == 2 ? "0,1" : "0,1,2,3");
        props.put("pgque.slots", Integer.toString(n));
        props.put(TaskKeys.TASK_COUNT, "1");
        props.put("pgque.batch.max.events", Integer.toString(CHUNK));
        PgQueSourceTask task = HandDrivenTask.start(props);
        started.add(task);
        return task;
    }

    private void stop(PgQueSourceTask task) {
        started.remove(task);
        task.stop();
    }

    /** {@code count} rounds of five events per key, a tick after each. */
    private void send(int count) {
        for (int i = 0; i < count; i++) {
            sendRound(pg, QUEUE, keys, rounds++ * 5);
        }
    }

    /** Polls {@code task} until {@code done}, Kafka acknowledging every record at once. */
    private static void drive(PgQueSourceTask task, String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out after " + DEADLINE + " driving the task to: " + what);
            List<SourceRecord> records = task.poll();
            if (records != null) {
                records.forEach(record -> task.commitRecord(record, null));
            }
        }
    }

    private static boolean caughtUp(int n) {
        for (int slot = 0; slot < n; slot++) {
            if (pg.pendingEvents(QUEUE, CONNECTOR, slot) != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean resized(int n, long epoch) {
        ResizeState state = pg.pgque.slotResize(QUEUE, CONNECTOR).state().orElseThrow();
        return !state.draining() && state.n() == n && state.resizeEpoch() == epoch;
    }

    /** The slots the connector's tasks in this process read through its shared windows, by N. */
    private static Map<Integer, Set<Integer>> shared() {
        return ConnectorScans.joined(CONNECTOR, pg.jdbcUrl(), QUEUE, CONNECTOR);
    }

    /** Whether a read-ahead thread of the task (any of its workers) whose name ends with {@code suffix} is alive. */
    private static boolean readAheadThreads(String suffix) {
        // Worker ids are <connector>-<task>-<random>.
        String prefix = "pgque-read-ahead-" + CONNECTOR + "-0-";
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().startsWith(prefix) && t.getName().endsWith(suffix));
    }
}

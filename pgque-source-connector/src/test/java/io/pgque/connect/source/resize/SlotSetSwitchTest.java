/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.resize;

import io.pgque.client.PartitionMismatchException;
import io.pgque.client.PgQueException;
import io.pgque.client.ResizeState;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A task's side of a resize against a fake engine and fake slot-set readers: which set it opens,
 * when it completes the resize and switches, what it does with the set it leaves, and how it
 * fails. The switch with real readers and a real engine is {@code SourceResizeIT}'s.
 */
class SlotSetSwitchTest {

    /** The engine's side: the consumer's slot sets stand as the test says. */
    private static final class FakeEngine implements ResizeProgress {
        ResizeState state;
        RuntimeException unreachable;
        boolean anotherTaskCompletes;
        int completions;

        @Override
        public Optional<ResizeState> state() {
            if (unreachable != null) {
                throw unreachable;
            }
            return Optional.ofNullable(state);
        }

        @Override
        public int complete() {
            completions++;
            state = stable(state.newN(), state.resizeEpoch() + 1);
            if (anotherTaskCompletes) {
                throw new PgQueException("consumer is not being resized", "55000", null);
            }
            return state.n();
        }
    }

    /** One set's reader: records what the switch asked of it. */
    private static final class FakeReader implements SlotSetReader {
        final int n;
        final List<Integer> slots;
        final List<SourceRecord> records;
        RuntimeException refusal;
        boolean heard;
        int ticks;
        boolean stopped;
        boolean abandoned;
        Duration closed;

        FakeReader(int n, List<Integer> slots) {
            this.n = n;
            this.slots = slots;
            this.records = List.of(new SourceRecord(Map.of("n", n), Map.of(), "topic", null, "of set " + n));
        }

        @Override
        public List<SourceRecord> poll() {
            if (refusal != null) {
                throw refusal;
            }
            return records;
        }

        @Override
        public void tickArrived() {
            ticks++;
        }

        @Override
        public void hearing(boolean heard) {
            this.heard = heard;
        }

        @Override
        public void stop() {
            stopped = true;
        }

        @Override
        public void close(Duration grace) {
            closed = grace;
        }

        @Override
        public void abandon() {
            abandoned = true;
        }

        @Override
        public boolean release(int slot) {
            return false;
        }
    }

    private final FakeEngine engine = new FakeEngine();
    private final List<FakeReader> opened = new ArrayList<>();
    private final ResizeMetrics metrics = new ResizeMetrics(null);

    private static ResizeState stable(int n, long epoch) {
        return new ResizeState(false, epoch, n, null, null, List.of());
    }

    private static ResizeState draining(int oldN, int newN, String... blockers) {
        return new ResizeState(true, 0, oldN, newN, 42L, List.of(blockers));
    }

    /** A task configured for {@code target} slots that checks the resize on every poll. */
    private SlotSetSwitch newSwitch(int target, List<Integer> targetSlots, int task, OptionalInt tasks) {
        return newSwitch(target, targetSlots, task, tasks, Duration.ZERO);
    }

    private SlotSetSwitch newSwitch(int target, List<Integer> targetSlots, int task, OptionalInt tasks,
                                    Duration checkEvery) {
        return new SlotSetSwitch(engine, target, targetSlots, task, tasks, (n, slots) -> {
            FakeReader reader = new FakeReader(n, slots);
            opened.add(reader);
            return reader;
        }, metrics, checkEvery);
    }

    private FakeReader last() {
        return opened.get(opened.size() - 1);
    }

    @Test
    void outsideAResizeItReadsTheConfiguredSetAndPassesEverythingOn() throws Exception {
        engine.state = stable(4, 3);
        SlotSetSwitch sets = newSwitch(4, List.of(1, 3), 1, OptionalInt.of(2));
        sets.hearing(true); // the listener may report before the first set opens

        List<SourceRecord> polled = sets.poll();
        assertEquals(1, opened.size());
        FakeReader reader = last();
        assertEquals(4, reader.n);
        assertEquals(List.of(1, 3), reader.slots);
        assertSame(reader.records, polled);
        assertTrue(reader.heard, "a set opened later hears what the listener said before");
        assertEquals(4, metrics.slotCount());
        assertFalse(metrics.isDraining());

        sets.tickArrived();
        sets.stop();
        sets.close(Duration.ofSeconds(7));
        assertEquals(1, reader.ticks);
        assertTrue(reader.stopped);
        assertEquals(Duration.ofSeconds(7), reader.closed);
        assertEquals(0, engine.completions);
    }

    @Test
    void whileDrainingItReadsItsShareOfTheOldSetThenCompletesAndSwitches() throws Exception {
        engine.state = draining(2, 4, "slot 1: batch 7 is open");
        SlotSetSwitch sets = newSwitch(4, List.of(1, 3), 1, OptionalInt.of(2));

        sets.poll();
        FakeReader old = last();
        assertEquals(2, old.n);
        assertEquals(List.of(1), old.slots, "task 1 of 2 reads old slot 1 of 2");
        assertTrue(metrics.isDraining());
        assertEquals(2, metrics.slotCount());

        sets.poll();
        assertEquals(0, engine.completions, "an old slot still blocks the seal");
        assertEquals(1, opened.size());

        engine.state = draining(2, 4);
        List<SourceRecord> polled = sets.poll();
        assertEquals(1, engine.completions);
        assertEquals(2, opened.size());
        FakeReader current = last();
        assertEquals(4, current.n);
        assertEquals(List.of(1, 3), current.slots);
        assertSame(current.records, polled);
        assertTrue(old.abandoned, "the retired set's leases are gone in the engine: abandoned, not given back");
        assertNull(old.closed);
        assertEquals(List.of(1, 3), sets.slots());
        assertFalse(metrics.isDraining());
        assertEquals(4, metrics.slotCount());
    }

    @Test
    void aResizeAnotherTaskCompletedFirstSwitchesAllTheSame() throws Exception {
        engine.state = draining(4, 2);
        engine.anotherTaskCompletes = true;
        SlotSetSwitch sets = newSwitch(2, List.of(0), 0, OptionalInt.of(2));

        sets.poll();
        assertEquals(List.of(0, 2), opened.get(0).slots, "task 0 of 2 drains old slots 0 and 2 of 4");
        sets.poll();
        assertEquals(1, engine.completions);
        assertEquals(2, last().n);
        assertEquals(List.of(0), last().slots);
        assertTrue(opened.get(0).abandoned);
    }

    @Test
    void theEnginesRefusalOfTheOldSetSwitchesAtOnce() throws Exception {
        engine.state = draining(2, 4, "slot 0: cursor at tick 5, seal at tick 42");
        // Checked on the first poll only: what follows comes from the refusal, not from a check.
        SlotSetSwitch sets = newSwitch(4, List.of(1, 3), 1, OptionalInt.of(2), Duration.ofHours(1));
        sets.poll();
        FakeReader old = last();
        // Another task completed the resize: the engine retired the old set (PQ011).
        engine.state = stable(4, 1);
        old.refusal = new ConnectException("reading slot 1 failed",
                new PartitionMismatchException("slot set of n=2 was retired", "P0001", null));

        assertNull(sets.poll(), "the poll that met the refusal returns nothing");
        assertTrue(old.abandoned);
        assertEquals(4, last().n);
        assertSame(last().records, sets.poll());
    }

    @Test
    void aRefusalWhileTheResizeStillDrainsFailsTheTask() throws Exception {
        engine.state = draining(2, 4, "slot 0: batch 3 is open");
        SlotSetSwitch sets = newSwitch(4, List.of(1, 3), 1, OptionalInt.of(2), Duration.ofHours(1));
        sets.poll();
        ConnectException refusal = new ConnectException("reading slot 1 failed",
                new PartitionMismatchException("slot 1 is not a slot of n=2", "P0001", null));
        last().refusal = refusal;

        assertSame(refusal, assertThrows(ConnectException.class, sets::poll));
        assertEquals(1, opened.size());
    }

    @Test
    void aResizeAbortedOutsideTheConnectorFailsTheTaskSayingWhatToDo() throws Exception {
        engine.state = draining(2, 4, "slot 0: batch 3 is open");
        SlotSetSwitch sets = newSwitch(4, List.of(1, 3), 1, OptionalInt.of(2));
        sets.poll();
        engine.state = stable(2, 0);

        ConnectException e = assertThrows(ConnectException.class, sets::poll);
        assertTrue(e.getMessage().contains("aborted outside this connector")
                && e.getMessage().contains("pgque.slots=2"), e.getMessage());
    }

    @Test
    void aConsumerOfAnotherSlotCountFailsTheFirstPollNamingBoth() {
        engine.state = stable(8, 0);
        SlotSetSwitch sets = newSwitch(4, List.of(0, 2), 0, OptionalInt.of(2));

        ConnectException e = assertThrows(ConnectException.class, sets::poll);
        assertTrue(e.getMessage().contains("has 8 slots but this task is configured for 4 slots"), e.getMessage());
        assertTrue(opened.isEmpty());
    }

    @Test
    void drainingWithoutTheTaskCountFailsAndAsksForARestart() {
        engine.state = draining(2, 4);
        SlotSetSwitch sets = newSwitch(4, List.of(0, 2), 0, OptionalInt.empty());

        ConnectException e = assertThrows(ConnectException.class, sets::poll);
        assertTrue(e.getMessage().contains("restart the connector"), e.getMessage());
    }

    @Test
    void aDatabaseThatDoesNotAnswerIsAskedAgainOnTheNextPollAndOtherFailuresFailTheTask() throws Exception {
        engine.state = stable(4, 0);
        engine.unreachable = new PgQueException("connection refused", "08001", null);
        SlotSetSwitch sets = newSwitch(4, List.of(0, 2), 0, OptionalInt.of(2));

        assertNull(sets.poll());
        assertTrue(opened.isEmpty());
        engine.unreachable = null;
        assertSame(sets.poll(), last().records);

        engine.state = draining(4, 8, "slot 0: batch 1 is open");
        SlotSetSwitch other = newSwitch(8, List.of(0, 2, 4, 6), 0, OptionalInt.of(2));
        other.poll();
        engine.unreachable = new PgQueException("permission denied for function partition_resize_status", "42501",
                null);
        ConnectException e = assertThrows(ConnectException.class, other::poll);
        assertTrue(e.getMessage().startsWith("Checking the resize to 8 slots failed"), e.getMessage());
    }

    @Test
    void aStopBeforeTheFirstPollOpensNothingAndAStopWhileDrainingStopsTheNextSetToo() throws Exception {
        engine.state = stable(4, 0);
        SlotSetSwitch idle = newSwitch(4, List.of(0, 2), 0, OptionalInt.of(2));
        idle.stop();
        assertNull(idle.poll());
        assertTrue(opened.isEmpty());

        engine.state = draining(2, 4, "slot 0: batch 3 is open");
        SlotSetSwitch sets = newSwitch(4, List.of(0, 2), 0, OptionalInt.of(2));
        sets.poll();
        sets.stop();
        assertTrue(last().stopped);
        engine.state = draining(2, 4);
        sets.poll();
        assertEquals(4, last().n);
        assertTrue(last().stopped, "a set opened after stop() returns from its polls at once");
    }

    @Test
    void aConsumerDroppedWhileTheTaskRunsFailsItSayingSo() throws Exception {
        engine.state = draining(2, 4, "slot 0: batch 3 is open");
        SlotSetSwitch sets = newSwitch(4, List.of(0, 2), 0, OptionalInt.of(2));
        sets.poll();
        engine.state = null;

        ConnectException e = assertThrows(ConnectException.class, sets::poll);
        assertTrue(e.getMessage().contains("no longer exists"), e.getMessage());
    }
}

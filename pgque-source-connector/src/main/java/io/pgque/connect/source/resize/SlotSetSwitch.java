/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.resize;

import io.pgque.client.PartitionMismatchException;
import io.pgque.client.PgQueException;
import io.pgque.client.ResizeState;
import io.pgque.connect.source.config.SlotAssignment;
import io.pgque.connect.source.ticker.TickReceiver;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A task's side of a resize. While the consumer is draining, the task reads its share of the old
 * slots (the same {@code k mod M} rule as always, over the old N), and every check interval asks
 * the engine how the resize stands: once every old slot of every task is at the seal, the first
 * task to notice completes the resize, and each task switches to its share of the new slots. A
 * task that learns of the switch from the engine's refusal (its old set was retired) switches
 * too. Outside a resize this is a plain pass-through to the reader of the configured set.
 *
 * <p>Used on the poll thread, except {@link #stop()}, {@link #tickArrived()} and {@link #hearing}.
 */
public final class SlotSetSwitch implements TickReceiver {

    private static final Logger log = LoggerFactory.getLogger(SlotSetSwitch.class);
    /** How often a waiting task repeats in the log what still blocks the resize. */
    private static final long REPORT_EVERY_NANOS = Duration.ofSeconds(10).toNanos();

    private final ResizeProgress resize;
    private final int target;
    private final List<Integer> targetSlots;
    private final int task;
    private final OptionalInt tasks;
    private final SlotSetReader.Factory factory;
    private final ResizeMetrics metrics;
    private final long checkEveryNanos;
    private volatile SlotSetReader current;
    /** What the tick listener last said, for a reader opened after it said it. */
    private volatile boolean hearing;
    private List<Integer> currentSlots;
    private boolean draining;
    private volatile boolean stopped;
    private long nextCheckNanos;
    private long nextReportNanos;

    /**
     * A switch that reads nothing yet: the first {@link #poll()} asks the engine which set is in
     * force (the configured one, or the old one of a resize to the configured N that is under way)
     * and opens it. Nothing here touches the database, so a task can start while it is down.
     *
     * @param target      the configured slot count
     * @param targetSlots this task's slots of the configured set
     * @param task        this task's index
     * @param tasks       how many tasks the connector runs (needed to share out the old set of a resize)
     * @param checkEvery  how often to look at the resize while draining
     */
    public SlotSetSwitch(ResizeProgress resize, int target, List<Integer> targetSlots, int task, OptionalInt tasks,
                         SlotSetReader.Factory factory, ResizeMetrics metrics, Duration checkEvery) {
        this.resize = resize;
        this.target = target;
        this.targetSlots = targetSlots;
        this.task = task;
        this.tasks = tasks;
        this.factory = factory;
        this.metrics = metrics;
        this.checkEveryNanos = checkEvery.toNanos();
    }

    /**
     * Opens the set the engine has in force.
     *
     * @return false when the database could not be asked (the next poll tries again)
     * @throws ConnectException when the engine's consumer matches neither set
     */
    private boolean begin() {
        ResizeState state;
        try {
            state = state();
        } catch (PgQueException e) {
            if (e.isTransient()) {
                log.debug("Could not read the consumer's slot sets yet: {}", e.getMessage());
                return false;
            }
            throw new ConnectException("Reading the consumer's slot sets failed: " + e.getMessage(), e);
        }
        if (state.draining() && state.newN() == target) {
            if (tasks.isEmpty()) {
                throw new ConnectException("The consumer is being resized, and this task's configuration does not "
                        + "say how many tasks share the old slots; restart the connector");
            }
            draining = true;
            open(state.n(), SlotAssignment.slotsOf(task, tasks.getAsInt(), state.n()));
            metrics.draining(state);
            log.info("Consumer resizing from {} to {} slots (seal tick {}): task {} drains old slots {} first",
                    state.n(), target, state.sealTick(), task, currentSlots);
        } else if (!state.draining() && state.n() == target) {
            open(target, targetSlots);
            metrics.stable(state);
        } else {
            throw new ConnectException("The consumer has " + describe(state) + " but this task is configured for "
                    + target + " slots; the tasks resize when they start: restart the connector");
        }
        return true;
    }

    /** The slots this task reads now; null before the first poll. */
    public List<Integer> slots() {
        return currentSlots;
    }

    public List<SourceRecord> poll() throws InterruptedException {
        if (current == null && (stopped || !begin())) {
            if (stopped) {
                return null;
            }
            // The database is away: wait a little rather than spin.
            Thread.sleep(checkEveryNanos / 1_000_000);
            return null;
        }
        if (draining && System.nanoTime() >= nextCheckNanos) {
            check();
        }
        try {
            return current.poll();
        } catch (ConnectException e) {
            if (draining && setChanged(e)) {
                check();
                if (!draining) {
                    return null;
                }
            }
            throw e;
        }
    }

    /** A tick was committed: wakes the reader of the current set. Any thread. */
    @Override
    public void tickArrived() {
        SlotSetReader reader = current;
        if (reader != null) {
            reader.tickArrived();
        }
    }

    /** Whether ticks are heard, for the reader of the current set and any later one. Any thread. */
    @Override
    public void hearing(boolean heard) {
        hearing = heard;
        SlotSetReader reader = current;
        if (reader != null) {
            reader.hearing(heard);
        }
    }

    /** Any thread. */
    public void stop() {
        stopped = true;
        SlotSetReader reader = current;
        if (reader != null) {
            reader.stop();
        }
    }

    public void close(Duration grace) {
        SlotSetReader reader = current;
        if (reader != null) {
            reader.close(grace);
        }
    }

    private void check() {
        nextCheckNanos = System.nanoTime() + checkEveryNanos;
        ResizeState state;
        try {
            state = state();
            if (state.ready()) {
                try {
                    int n = resize.complete();
                    log.info("Completed the resize to {} slots (resize epoch {}): every old slot was at seal tick {}",
                            n, state.resizeEpoch() + 1, state.sealTick());
                } catch (PgQueException e) {
                    // Another task completed it first, or an old slot moved again in between.
                    log.debug("complete_resize not done by task {}: {}", task, e.getMessage());
                }
                state = state();
            }
        } catch (PgQueException e) {
            if (e.isTransient()) {
                log.debug("Could not check the resize: {}", e.getMessage());
                return;
            }
            throw new ConnectException("Checking the resize to " + target + " slots failed: " + e.getMessage(), e);
        }
        if (state.draining()) {
            metrics.draining(state);
            if (System.nanoTime() >= nextReportNanos) {
                nextReportNanos = System.nanoTime() + REPORT_EVERY_NANOS;
                log.info("Resize from {} to {} slots: waiting for the old slots to reach seal tick {}; blocking: {}",
                        state.n(), state.newN(), state.sealTick(), SlotCountChange.blocking(state));
            }
            return;
        }
        if (state.n() != target) {
            throw new ConnectException("The resize to " + target + " slots was aborted outside this connector; "
                    + "the consumer keeps " + state.n() + " slots. Restart the connector to resize again, or set "
                    + "pgque.slots=" + state.n());
        }
        switchTo(state);
    }

    private void switchTo(ResizeState state) {
        List<Integer> old = currentSlots;
        current.abandon();
        draining = false;
        open(target, targetSlots);
        // A claim made by the old set's loop just after the switch lands on the new set's lease
        // rows; give back any such lease this task does not read now, so its owner need not wait.
        for (int slot : old) {
            if (slot < target && !currentSlots.contains(slot) && current.release(slot)) {
                log.info("Gave back slot {} of the new set, claimed while switching", slot);
            }
        }
        metrics.stable(state);
        log.info("Switched to the {}-slot set (resize epoch {}): task {} now reads slots {}", target,
                state.resizeEpoch(), task, currentSlots);
    }

    private void open(int n, List<Integer> slots) {
        currentSlots = slots;
        current = factory.open(n, slots);
        current.hearing(hearing);
        if (stopped) {
            current.stop(); // stop() ran while the set was opening
        }
    }

    private ResizeState state() {
        Optional<ResizeState> state = resize.state();
        return state.orElseThrow(() -> new ConnectException("The partitioned consumer no longer exists; "
                + "it was dropped while the connector ran"));
    }

    private static String describe(ResizeState state) {
        return state.draining() ? "a resize from " + state.n() + " to " + state.newN() + " slots under way"
                : state.n() + " slots";
    }

    /** The engine refused the old set: it was retired (PQ011), or a slot number is gone from the new one (PQ006). */
    private static boolean setChanged(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof PartitionMismatchException) {
                return true;
            }
        }
        return false;
    }
}

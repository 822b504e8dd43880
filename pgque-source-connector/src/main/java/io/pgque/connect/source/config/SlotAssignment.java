/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Which slots each task owns: task {@code i} of {@code M} gets {@code {k : k mod M = i}}. Static
 * on purpose: the lease decides who may read a slot, this only decides who tries, so two tasks
 * never fight over a slot while both are healthy.
 */
public final class SlotAssignment {

    private SlotAssignment() {
    }

    /** How many tasks get work: no more than there are slots, since a slot is never split. */
    public static int taskCount(int maxTasks, int slots) {
        requirePositive("maxTasks", maxTasks);
        requirePositive("slots", slots);
        return Math.min(maxTasks, slots);
    }

    /** The slots of task {@code task} out of {@code tasks}, ascending. */
    public static List<Integer> slotsOf(int task, int tasks, int slots) {
        requirePositive("tasks", tasks);
        requirePositive("slots", slots);
        if (task < 0 || task >= tasks) {
            throw new IllegalArgumentException("task must be in 0.." + (tasks - 1) + ", was " + task);
        }
        List<Integer> owned = new ArrayList<>();
        for (int slot = task; slot < slots; slot += tasks) {
            owned.add(slot);
        }
        return Collections.unmodifiableList(owned);
    }

    private static void requirePositive(String what, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, was " + value);
        }
    }
}

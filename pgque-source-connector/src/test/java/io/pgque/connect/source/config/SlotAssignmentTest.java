/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SlotAssignmentTest {

    @Test
    void taskIGetsTheSlotsCongruentToIModM() {
        assertEquals(List.of(0, 2), SlotAssignment.slotsOf(0, 2, 4));
        assertEquals(List.of(1, 3), SlotAssignment.slotsOf(1, 2, 4));
        assertEquals(List.of(1, 4), SlotAssignment.slotsOf(1, 3, 5));
    }

    @Test
    void everySlotHasExactlyOneTaskForAnyTaskCount() {
        for (int slots = 1; slots <= 16; slots++) {
            for (int maxTasks = 1; maxTasks <= 20; maxTasks++) {
                int tasks = SlotAssignment.taskCount(maxTasks, slots);
                List<Integer> seen = new ArrayList<>();
                for (int task = 0; task < tasks; task++) {
                    List<Integer> owned = SlotAssignment.slotsOf(task, tasks, slots);
                    assertEquals(false, owned.isEmpty(), "task " + task + " of " + tasks + " has no slot");
                    seen.addAll(owned);
                }
                seen.sort(null);
                List<Integer> all = new ArrayList<>();
                for (int k = 0; k < slots; k++) {
                    all.add(k);
                }
                assertEquals(all, seen, "slots=" + slots + " maxTasks=" + maxTasks);
            }
        }
    }

    @Test
    void moreTasksThanSlotsLeavesTheExtraTasksOut() {
        assertEquals(4, SlotAssignment.taskCount(10, 4));
        assertEquals(3, SlotAssignment.taskCount(3, 4));
    }

    @Test
    void rejectsImpossibleArguments() {
        assertThrows(IllegalArgumentException.class, () -> SlotAssignment.slotsOf(2, 2, 4));
        assertThrows(IllegalArgumentException.class, () -> SlotAssignment.slotsOf(-1, 2, 4));
        assertThrows(IllegalArgumentException.class, () -> SlotAssignment.taskCount(0, 4));
        assertThrows(IllegalArgumentException.class, () -> SlotAssignment.taskCount(1, 0));
    }
}

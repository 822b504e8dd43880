/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.coop;

import io.pgque.connect.source.config.TaskKeys;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CoopTasksTest {

    @Test
    void everyTaskKnowsItsIndexAndTheTaskCount() {
        List<Map<String, String>> configs = CoopTasks.taskConfigs(Map.of("pgque.queue", "q"), true, 3);
        assertEquals(3, configs.size());
        for (int task = 0; task < 3; task++) {
            assertEquals(task, TaskKeys.taskIndex(configs.get(task)));
            assertEquals(OptionalInt.of(3), TaskKeys.taskCount(configs.get(task)));
        }
    }

    @Test
    void workerNamesMapBackToTheirTaskAndNoOtherNameDoes() {
        assertEquals(OptionalInt.of(7), CoopTasks.taskOf(CoopTasks.workerName(7)));
        for (String other : List.of("task-", "task-x", "task--1", "worker-1", "task-1a", "task-99999999999")) {
            assertEquals(OptionalInt.empty(), CoopTasks.taskOf(other), other);
        }
    }
}

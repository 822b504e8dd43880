/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TaskKeysTest {

    private static final Map<String, String> CONNECTOR = Map.of("name", "orders-src", "pgque.slots", "4");

    @Test
    void eachTaskGetsItsSlotsAndEveryTaskSharesTheTickerDuty() {
        List<Map<String, String>> configs = TaskKeys.taskConfigs(CONNECTOR, 4, true, 3);
        assertEquals(3, configs.size());
        assertEquals(List.of(0, 3), TaskKeys.slots(configs.get(0)));
        assertEquals(List.of(1), TaskKeys.slots(configs.get(1)));
        assertEquals(List.of(2), TaskKeys.slots(configs.get(2)));
        assertEquals(List.of(true, true, true),
                configs.stream().map(TaskKeys::runsTicker).toList());
        for (int task = 0; task < 3; task++) {
            assertEquals(task, TaskKeys.taskIndex(configs.get(task)));
            assertEquals("orders-src", configs.get(task).get("name"), "user keys are passed on");
        }
    }

    @Test
    void nobodyTicksWhenTheDutyIsOff() {
        assertTrue(TaskKeys.taskConfigs(CONNECTOR, 4, false, 2).stream().noneMatch(TaskKeys::runsTicker));
    }

    @Test
    void neverMoreTasksThanSlots() {
        assertEquals(4, TaskKeys.taskConfigs(CONNECTOR, 4, false, 9).size());
    }

    @Test
    void aTaskConfigWithoutAssignmentIsRejectedNamingTheKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> TaskKeys.slots(Map.of()));
        assertTrue(e.getMessage().contains(TaskKeys.TASK_SLOTS), e.getMessage());
        e = assertThrows(ConfigException.class, () -> TaskKeys.slots(Map.of(TaskKeys.TASK_SLOTS, "1,x")));
        assertTrue(e.getMessage().contains(TaskKeys.TASK_SLOTS), e.getMessage());
    }
}

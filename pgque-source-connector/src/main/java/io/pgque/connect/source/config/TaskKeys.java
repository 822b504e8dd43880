/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.connect.common.config.TaskIndex;
import org.apache.kafka.common.config.ConfigException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Keys the connector adds to each task's configuration, on top of the user's: which task it is,
 * which slots it owns and whether it carries the ticker duty. Not user settings, so they live
 * outside {@link SourceConfigDef}.
 */
public final class TaskKeys {

    public static final String TASK_INDEX = TaskIndex.KEY;
    public static final String TASK_SLOTS = "pgque.task.slots";
    public static final String TASK_TICKER = "pgque.task.ticker";
    /** How many tasks share the slots: a task draining a resize applies the same rule to the old N. */
    public static final String TASK_COUNT = "pgque.task.count";

    private TaskKeys() {
    }

    /**
     * One configuration per task that gets work: the connector's own keys plus the task's index,
     * its slots ({@link SlotAssignment}) and the ticker duty when enabled: every task carries it,
     * and the database decides who ticks in each round, so a failed task never stops the ticks.
     */
    public static List<Map<String, String>> taskConfigs(Map<String, String> connectorProps, int slots,
                                                        boolean tickerEnabled, int maxTasks) {
        int tasks = SlotAssignment.taskCount(maxTasks, slots);
        List<Map<String, String>> configs = new ArrayList<>(tasks);
        for (int task = 0; task < tasks; task++) {
            Map<String, String> taskProps = new HashMap<>(connectorProps);
            taskProps.put(TASK_INDEX, Integer.toString(task));
            taskProps.put(TASK_COUNT, Integer.toString(tasks));
            taskProps.put(TASK_SLOTS, slotsText(SlotAssignment.slotsOf(task, tasks, slots)));
            taskProps.put(TASK_TICKER, Boolean.toString(tickerEnabled));
            configs.add(taskProps);
        }
        return configs;
    }

    public static int taskIndex(Map<String, String> props) {
        String text = required(props, TASK_INDEX);
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new ConfigException(TASK_INDEX, text, "must be a task number");
        }
    }

    /** How many tasks share the slots; empty in configurations made before the key existed. */
    public static OptionalInt taskCount(Map<String, String> props) {
        String text = props.get(TASK_COUNT);
        if (text == null || text.isBlank()) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(text.trim()));
        } catch (NumberFormatException e) {
            throw new ConfigException(TASK_COUNT, text, "must be a task count");
        }
    }

    /** The comma-separated slot list as numbers. */
    public static List<Integer> slots(Map<String, String> props) {
        String text = required(props, TASK_SLOTS);
        List<Integer> slots = new ArrayList<>();
        for (String part : text.split(",")) {
            try {
                slots.add(Integer.parseInt(part.trim()));
            } catch (NumberFormatException e) {
                throw new ConfigException(TASK_SLOTS, text, "must be a comma-separated list of slot numbers");
            }
        }
        return Collections.unmodifiableList(slots);
    }

    public static String slotsText(List<Integer> slots) {
        StringBuilder text = new StringBuilder();
        for (int slot : slots) {
            if (text.length() > 0) {
                text.append(',');
            }
            text.append(slot);
        }
        return text.toString();
    }

    public static boolean runsTicker(Map<String, String> props) {
        return Boolean.parseBoolean(props.getOrDefault(TASK_TICKER, "false"));
    }

    private static String required(Map<String, String> props, String key) {
        String value = props.get(key);
        if (value == null || value.isBlank()) {
            throw new ConfigException(key, value, "is set by the connector for each task and is missing; "
                    + "the task configuration did not come from PgQueSourceConnector.taskConfigs");
        }
        return value.trim();
    }
}

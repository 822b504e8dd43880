/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.coop;

import io.pgque.connect.source.config.TaskKeys;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Task configurations in cooperative mode: every task gets work (there are no slots to run out
 * of), its index names its worker, and, as in ordered mode, every task shares the ticker duty
 * when enabled (the database decides who ticks in each round).
 */
public final class CoopTasks {

    private static final String WORKER_PREFIX = "task-";

    private CoopTasks() {
    }

    public static List<Map<String, String>> taskConfigs(Map<String, String> connectorProps, boolean tickerEnabled,
                                                        int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int task = 0; task < maxTasks; task++) {
            Map<String, String> taskProps = new HashMap<>(connectorProps);
            taskProps.put(TaskKeys.TASK_INDEX, Integer.toString(task));
            // Lets task 0 tell the workers of removed tasks from live ones (RemovedWorkers).
            taskProps.put(TaskKeys.TASK_COUNT, Integer.toString(maxTasks));
            taskProps.put(TaskKeys.TASK_TICKER, Boolean.toString(tickerEnabled));
            configs.add(taskProps);
        }
        return configs;
    }

    /**
     * The worker (subconsumer) name of task {@code task}: the same after every restart of the
     * task, on whichever Connect worker, because the engine gives a worker's open batch back to
     * the same name, id and all -- which is what lets a restarted task resume it exactly once.
     */
    public static String workerName(int task) {
        return WORKER_PREFIX + task;
    }

    /** The task a worker name stands for; empty for a name this connector never gives. */
    static OptionalInt taskOf(String worker) {
        if (!worker.startsWith(WORKER_PREFIX)) {
            return OptionalInt.empty();
        }
        String index = worker.substring(WORKER_PREFIX.length());
        if (index.isEmpty() || !index.chars().allMatch(Character::isDigit) || index.length() > 9) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(index));
    }
}

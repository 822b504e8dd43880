/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import java.util.List;
import java.util.Optional;

/**
 * A connector's state as {@code GET /connectors/{name}/status} reports it.
 *
 * @param name  the connector
 * @param state connector state: UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED, RESTARTING
 * @param trace the connector's failure trace, or null
 * @param tasks its tasks, by id
 */
public record ConnectorStatus(String name, String state, String trace, List<Task> tasks) {

    /**
     * @param id    task number
     * @param state task state, as for the connector
     * @param trace the task's failure trace, or null
     */
    public record Task(int id, String state, String trace) {
    }

    public ConnectorStatus {
        tasks = List.copyOf(tasks);
    }

    /** True when the connector and at least {@code expectedTasks} tasks, all of them, run. */
    public boolean running(int expectedTasks) {
        return "RUNNING".equals(state) && tasks.size() >= expectedTasks
                && tasks.stream().allMatch(t -> "RUNNING".equals(t.state()));
    }

    /** The first failure of the connector or a task, as one line plus its cause, if any failed. */
    public Optional<String> failure() {
        if ("FAILED".equals(state)) {
            return Optional.of("connector " + name + " FAILED: " + headline(trace));
        }
        return tasks.stream().filter(t -> "FAILED".equals(t.state())).findFirst()
                .map(t -> "task " + name + "-" + t.id() + " FAILED: " + headline(t.trace()));
    }

    /** The first line of a Java trace and its deepest "Caused by", which usually names the reason. */
    static String headline(String trace) {
        if (trace == null || trace.isBlank()) {
            return "(no trace)";
        }
        String[] lines = trace.split("\\R");
        String first = lines[0].trim();
        String cause = null;
        for (String line : lines) {
            if (line.startsWith("Caused by:")) {
                cause = line.trim();
            }
        }
        return cause == null ? first : first + " / " + cause;
    }
}

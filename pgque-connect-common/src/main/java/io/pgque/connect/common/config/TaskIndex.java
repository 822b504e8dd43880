/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

/**
 * The key under which each connector tells a task its index among the connector's tasks (for
 * pool names, logs, and the source's slot assignment). One name in both connectors; not a user
 * setting, so it is in no ConfigDef.
 */
public final class TaskIndex {

    public static final String KEY = "pgque.task.index";

    private TaskIndex() {
    }
}

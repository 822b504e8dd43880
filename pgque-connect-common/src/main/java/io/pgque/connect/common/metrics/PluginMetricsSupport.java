/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.metrics;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where a worker predates an API the connectors use for metrics ({@code pluginMetrics()} of the
 * task contexts came with Kafka 4.1, KIP-877), the tasks run without their metrics: the caller
 * catches the {@link LinkageError} of the call and hands it here, which says so once, in one log
 * line, and the caller goes on with null. Called around the call, not with a lambda: a lambda
 * whose type names a class the worker lacks fails when it is created, before any catch.
 */
public final class PluginMetricsSupport {

    private static final Logger log = LoggerFactory.getLogger(PluginMetricsSupport.class);
    private static final AtomicBoolean SAID = new AtomicBoolean();

    private PluginMetricsSupport() {
    }

    /**
     * Records that the worker has no plugin metrics.
     *
     * @param missing what the JVM threw for the missing API (NoSuchMethodError, NoClassDefFoundError)
     */
    public static void unavailable(LinkageError missing) {
        if (SAID.compareAndSet(false, true)) {
            log.info("This Connect worker has no plugin metrics (they need Kafka 4.1 or newer; {}): the PgQue "
                    + "connectors run without their metrics", missing.toString());
        }
    }
}

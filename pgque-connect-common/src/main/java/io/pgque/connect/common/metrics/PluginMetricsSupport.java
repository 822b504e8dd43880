/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.metrics;

import org.apache.kafka.common.metrics.PluginMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A task's plugin metrics where the worker has them: {@code pluginMetrics()} of the task contexts
 * came with Kafka 4.1 (KIP-877). On an older worker the tasks run without their metrics, and the
 * first task to find out says so in one log line. Looked up by reflection, so that no class of
 * either connector links against a method or type the worker may lack.
 */
public final class PluginMetricsSupport {

    private static final Logger log = LoggerFactory.getLogger(PluginMetricsSupport.class);
    private static final AtomicBoolean SAID = new AtomicBoolean();

    private PluginMetricsSupport() {
    }

    /** The interface method (public, whatever the context class is), or null where the worker has none. */
    private static Method declaredByAnInterface(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> contract : c.getInterfaces()) {
                try {
                    return contract.getMethod("pluginMetrics");
                } catch (NoSuchMethodException notThisOne) {
                    // look further
                }
            }
        }
        return null;
    }

    /**
     * @param taskContext a SinkTaskContext or SourceTaskContext, or null (hand-driven tests)
     * @return its plugin metrics, or null where there are none
     */
    public static PluginMetrics of(Object taskContext) {
        if (taskContext == null) {
            return null;
        }
        Method method = declaredByAnInterface(taskContext.getClass());
        if (method == null) {
            if (SAID.compareAndSet(false, true)) {
                log.info("This Connect worker has no plugin metrics (they need Kafka 4.1 or newer): the PgQue "
                        + "connectors run without their metrics");
            }
            return null;
        }
        try {
            return (PluginMetrics) method.invoke(taskContext);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call " + method, e);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime
                    : new IllegalStateException("pluginMetrics() failed", e.getCause());
        }
    }
}

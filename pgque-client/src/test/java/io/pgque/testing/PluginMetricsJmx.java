/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.testing;

import javax.management.AttributeNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;

/**
 * A connector's plugin metrics as an operator reads them: over JMX, from the MBeans a Connect
 * worker in this JVM registers under {@code kafka.connect:type=plugins,connector=...,task=...}.
 */
public final class PluginMetricsJmx {

    private PluginMetricsJmx() {
    }

    /**
     * {@code attribute} summed over the connector's MBeans that have it (one per task, or per
     * task and slot); 0 while none has it.
     */
    public static double sum(String connector, String attribute) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            double sum = 0;
            for (ObjectName name : server.queryNames(new ObjectName("kafka.connect:type=plugins,connector="
                    + connector + ",*"), null)) {
                Object value;
                try {
                    value = server.getAttribute(name, attribute);
                } catch (AttributeNotFoundException elsewhere) {
                    continue;
                }
                if (value instanceof Number number && !Double.isNaN(number.doubleValue())) {
                    sum += number.doubleValue();
                }
            }
            return sum;
        } catch (Exception e) {
            throw new AssertionError("cannot read plugin metric " + attribute + " of " + connector + ": " + e, e);
        }
    }
}

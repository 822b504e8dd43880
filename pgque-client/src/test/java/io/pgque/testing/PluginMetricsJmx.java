/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.testing;

import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A connector's plugin metrics as an operator reads them: over JMX, from the MBeans a Connect
 * worker in this JVM registers under {@code kafka.connect:type=plugins,connector=...,task=...}.
 */
public final class PluginMetricsJmx {

    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private PluginMetricsJmx() {
    }

    /**
     * {@code attribute} summed over the connector's MBeans that have it (one per task, or per
     * task and slot); 0 while none has it.
     */
    public static double sum(String connector, String attribute) {
        double sum = 0;
        for (ObjectName name : names(connector)) {
            Double value = value(name, attribute);
            if (value != null && !Double.isNaN(value)) {
                sum += value;
            }
        }
        return sum;
    }

    /**
     * {@code attribute} of each task of the connector, by task number, read from the task's own
     * MBean ({@code connector} and {@code task} only, not its per-slot or per-queue ones); a task
     * whose MBean lacks the attribute is left out.
     */
    public static Map<Integer, Double> byTask(String connector, String attribute) {
        Map<Integer, Double> values = new TreeMap<>();
        for (ObjectName name : names(connector)) {
            if (name.getKeyPropertyList().size() != 3 || name.getKeyProperty("task") == null) {
                continue;
            }
            Double value = value(name, attribute);
            if (value != null) {
                values.put(Integer.parseInt(name.getKeyProperty("task")), value);
            }
        }
        return values;
    }

    /** {@code attribute} of each of the connector's MBeans that has it, by MBean. */
    public static Map<ObjectName, Double> values(String connector, String attribute) {
        Map<ObjectName, Double> values = new HashMap<>();
        for (ObjectName name : names(connector)) {
            Double value = value(name, attribute);
            if (value != null) {
                values.put(name, value);
            }
        }
        return values;
    }

    /** The connector's plugin MBeans (tasks', slots', queues'); empty once it and its tasks are gone. */
    public static Set<ObjectName> names(String connector) {
        try {
            return SERVER.queryNames(new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",*"), null);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("connector name " + connector + " makes no MBean name", e);
        }
    }

    /** The attribute as a number, or null where the MBean (gone meanwhile) or the attribute is missing. */
    private static Double value(ObjectName name, String attribute) {
        try {
            Object value = SERVER.getAttribute(name, attribute);
            return value instanceof Number number ? number.doubleValue() : null;
        } catch (AttributeNotFoundException | InstanceNotFoundException absent) {
            return null;
        } catch (Exception e) {
            throw new AssertionError("cannot read plugin metric " + attribute + " of " + name + ": " + e, e);
        }
    }
}

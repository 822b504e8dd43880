package io.pgque.connect.sink;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;

/** A connector's plugin metrics as an operator reads them: over JMX, from the worker's MBeans. */
public final class PluginMetricsJmx {

    private PluginMetricsJmx() {
    }

    /** {@code attribute} summed over the connector's tasks; 0 while no task has registered it. */
    public static double sum(String connector, String attribute) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            double sum = 0;
            for (ObjectName name : server.queryNames(new ObjectName("kafka.connect:type=plugins,connector="
                    + connector + ",*"), null)) {
                if (name.getKeyProperty("task") == null) {
                    continue;
                }
                Object value = server.getAttribute(name, attribute);
                if (value instanceof Number number && !Double.isNaN(number.doubleValue())) {
                    sum += number.doubleValue();
                }
            }
            return sum;
        } catch (javax.management.AttributeNotFoundException e) {
            return 0;
        } catch (Exception e) {
            throw new AssertionError("cannot read plugin metric " + attribute + " of " + connector + ": " + e, e);
        }
    }
}

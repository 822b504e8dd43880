/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import org.apache.kafka.common.utils.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JVM shutdown hook for Ctrl-C and SIGTERM. Kafka's broker and Connect worker register hooks
 * of their own, and the JVM runs hooks in no set order: Connect could still be committing while
 * the broker or PostgreSQL is already gone. So Kafka's hooks are captured and dropped, and the
 * quickstart's own hook stops everything in order.
 */
final class Shutdown {

    private static final Logger LOG = LoggerFactory.getLogger(Shutdown.class);

    private Shutdown() {
    }

    /** Must run before the broker or worker starts, since they register their hooks on start. */
    static void captureKafkaHooks() {
        Exit.setShutdownHookAdder((name, hook) ->
                LOG.debug("Not registering Kafka's shutdown hook '{}': the quickstart stops services in order", name));
    }

    /** Registers {@code stopAll} to run on Ctrl-C or SIGTERM; returns the hook for {@link #remove}. */
    static Thread onSignal(Runnable stopAll) {
        Thread hook = new Thread(() -> {
            LOG.info("Shutting down...");
            stopAll.run();
        }, "pgque-quickstart-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    /** Removes the hook after a normal stop (for an in-process run, such as a test). */
    static void remove(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is already running its hooks; ours is among them
        }
        Exit.resetShutdownHookAdder();
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.slot;

import io.pgque.client.PartitionMismatchException;
import io.pgque.client.PgQue;
import io.pgque.client.PgQueInstaller;
import io.pgque.client.QueueNotFoundException;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.source.config.SourceConfigDef;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * What the connector makes sure of before any task reads: the engine is there (when asked to
 * install it) and the logical consumer exists with its N slots, all created in one step at one
 * tick so that no slot misses events the others see.
 */
public final class ConsumerSetup {

    private static final Logger log = LoggerFactory.getLogger(ConsumerSetup.class);

    private ConsumerSetup() {
    }

    /**
     * @param attempts how often to try while the database is unreachable
     * @throws ConnectException with a message that names the key to change
     */
    public static void ensure(DataSource dataSource, SchemaInstall install, String queue, String consumer,
                              int slots, int attempts, Duration backoff) {
        for (int attempt = 1; ; attempt++) {
            try {
                if (install == SchemaInstall.IF_MISSING && new PgQueInstaller(dataSource).installIfMissing()) {
                    log.info("Installed the bundled PgQue engine");
                }
                PgQue.using(dataSource).slotConsumer(queue, consumer, slots, "connector").subscribe();
                log.info("Consumer {} reads queue {} through {} slots", consumer, queue, slots);
                return;
            } catch (QueueNotFoundException e) {
                throw new ConnectException("Queue '" + queue + "' (" + SourceConfigDef.QUEUE + ") does not exist; "
                        + "create it first: " + e.getMessage(), e);
            } catch (PartitionMismatchException e) {
                throw new ConnectException("Consumer '" + consumer + "' of queue '" + queue + "' cannot be set up with "
                        + SourceConfigDef.SLOTS + "=" + slots + " (an existing consumer keeps its N): "
                        + e.getMessage(), e);
            } catch (RuntimeException e) {
                if (!Failures.isTransient(e) || attempt >= attempts) {
                    throw new ConnectException("Cannot set up consumer '" + consumer + "' on queue '" + queue + "': "
                            + e.getMessage(), e);
                }
                log.warn("Database unavailable while setting up consumer {} (attempt {} of {}); retrying in {} ms: {}",
                        consumer, attempt, attempts, backoff.toMillis(), e.getMessage());
                sleep(backoff);
            }
        }
    }

    private static void sleep(Duration backoff) {
        try {
            Thread.sleep(backoff.toMillis()); // a plain backoff between connection attempts, nothing to wait on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while setting up the consumer", e);
        }
    }
}

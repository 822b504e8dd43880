/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.coop;

import io.pgque.client.PgQue;
import io.pgque.client.PgQueInstaller;
import io.pgque.client.QueueNotFoundException;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.source.config.SourceConfigDef;
import io.pgque.client.PgQueException;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * What a cooperative task makes sure of before it reads: the engine is there (when asked to
 * install it) and the cooperative consumer and this task's worker exist; the first task to get
 * here creates the group at the queue's newest tick.
 */
public final class CoopSetup {

    private static final Logger log = LoggerFactory.getLogger(CoopSetup.class);

    private CoopSetup() {
    }

    /**
     * @throws RetriableException when the database stayed unreachable for {@code attempts} tries
     * @throws ConnectException with a message that names the key to change
     */
    public static void ensure(DataSource dataSource, SchemaInstall install, String queue, String consumer,
                              String worker, int attempts, Duration backoff) {
        for (int attempt = 1; ; attempt++) {
            try {
                if (install == SchemaInstall.IF_MISSING && new PgQueInstaller(dataSource).installIfMissing()) {
                    log.info("Installed the bundled PgQue engine");
                }
                PgQue.using(dataSource).coopConsumer(queue, consumer, worker).register(false);
                log.info("Cooperative consumer {} reads queue {}", consumer, queue);
                return;
            } catch (QueueNotFoundException e) {
                throw new ConnectException("Queue '" + queue + "' (" + SourceConfigDef.QUEUE + ") does not exist; "
                        + "create it first: " + e.getMessage(), e);
            } catch (RuntimeException e) {
                if (PgQueException.isTransient(e) && attempt >= attempts) {
                    // The worker hears of it and polls again: the database may come back.
                    throw new RetriableException("Cannot reach the database to set up cooperative consumer '"
                            + consumer + "' on queue '" + queue + "' after " + attempts + " attempts: "
                            + e.getMessage(), e);
                }
                if (!PgQueException.isTransient(e)) {
                    throw new ConnectException("Cannot set up cooperative consumer '" + consumer + "' on queue '"
                            + queue + "' (" + SourceConfigDef.CONSUMER + "; an existing plain consumer of that name is "
                            + "never converted, choose another name): " + e.getMessage(), e);
                }
                log.warn("Database unavailable while setting up consumer {} (attempt {} of {}); retrying in {} ms: {}",
                        consumer, attempt, attempts, backoff.toMillis(), e.getMessage());
                log.debug("Setting up consumer {} failed", consumer, e);
                try {
                    Thread.sleep(backoff.toMillis()); // a plain backoff between connection attempts
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new ConnectException("Interrupted while setting up the consumer", interrupted);
                }
            }
        }
    }
}

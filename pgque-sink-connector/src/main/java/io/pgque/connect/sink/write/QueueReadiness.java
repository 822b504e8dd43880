/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import io.pgque.client.PgQue;
import io.pgque.client.PgQueInstaller;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.sink.config.PgQueSinkConfig;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * Makes sure the engine and each target queue exist before events are written: installs the
 * engine when asked to ({@code pgque.schema.install=if_missing}), and checks (or creates, with
 * {@code pgque.queue.auto.create}) each queue the first time a record goes to it. What was found
 * is remembered, so the common put costs no extra round trip.
 *
 * <p>Each step runs in a transaction of its own, before the write transaction: a queue created
 * here stays created even if the write that needed it is rolled back.
 */
public final class QueueReadiness {

    private static final Logger log = LoggerFactory.getLogger(QueueReadiness.class);

    private final DataSource dataSource;
    private final SchemaInstall schemaInstall;
    private final boolean autoCreate;
    private final Set<String> known = new HashSet<>();
    private boolean engineChecked;

    public QueueReadiness(DataSource dataSource, SchemaInstall schemaInstall, boolean autoCreate) {
        this.dataSource = dataSource;
        this.schemaInstall = schemaInstall;
        this.autoCreate = autoCreate;
    }

    /**
     * @throws ConnectException when the engine or a queue is missing and may not be created: a
     *         set-up problem no retry will fix
     * @throws io.pgque.client.PgQueException when the database fails; {@link FailureKind} says
     *         whether to retry
     */
    public void ensure(Collection<String> queues) {
        if (!engineChecked) {
            ensureEngine();
            engineChecked = true;
        }
        PgQue pq = PgQue.using(dataSource);
        for (String queue : queues) {
            if (known.contains(queue)) {
                continue;
            }
            if (pq.queues().info(queue).isEmpty()) {
                if (!autoCreate) {
                    throw new ConnectException("Queue '" + queue + "' does not exist. Create it (select pgque.create_queue('"
                            + queue + "')) or set " + PgQueSinkConfig.QUEUE_AUTO_CREATE + "=true, then restart the task");
                }
                if (pq.queues().create(queue)) {
                    log.info("Created queue '{}' ({}=true)", queue, PgQueSinkConfig.QUEUE_AUTO_CREATE);
                }
            }
            known.add(queue);
        }
    }

    /** Forgets what was found, e.g. after the database said a known queue is gone. */
    public void forget() {
        known.clear();
        engineChecked = false;
    }

    public boolean autoCreate() {
        return autoCreate;
    }

    private void ensureEngine() {
        PgQueInstaller installer = new PgQueInstaller(dataSource);
        if (schemaInstall == SchemaInstall.IF_MISSING) {
            if (installer.installIfMissing()) {
                log.info("Installed the PgQue engine {} ({}=if_missing)", PgQueInstaller.bundledVersion(),
                        EngineConfigDef.SCHEMA_INSTALL);
            }
        } else if (installer.installedVersion().isEmpty()) {
            throw new ConnectException("The PgQue engine is not installed in this database (no pgque.version()). "
                    + "Install it, or set " + EngineConfigDef.SCHEMA_INSTALL + "=if_missing, then restart the task");
        }
    }
}

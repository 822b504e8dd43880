/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.validate;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.common.probe.DatabaseProbe;
import io.pgque.connect.sink.config.PgQueSinkConfig;

import java.sql.SQLException;
import java.util.Map;

/** What the sink needs of the database it is about to write to, checked through one probe. */
final class SinkDatabaseRules {

    static final String SEND_EVENTS = "pgque.send_events(text,text[],text[],text[],text[],text[],text[])";
    static final String SEND_IDEM_EVENTS = "pgque.send_idem_events(text,text[],text[],text[],interval,text[],text[],text[])";
    static final String SEND_EVENTS_AT = "pgque.send_events_at(text,timestamptz[],text[],text[],text[],text[],text[],text[])";
    static final String SINK_OFFSETS = "pgque.sink_offsets(text)";
    static final String SINK_COMMIT_OFFSETS = "pgque.sink_commit_offsets(text,text[],int4[],bigint[],bigint[])";
    static final String CREATE_QUEUE = "pgque.create_queue(text)";
    static final String QUEUE_INFO = "pgque.get_queue_info(text)";

    private final DatabaseProbe probe;
    private final Expectations expected;
    private final Findings findings;

    SinkDatabaseRules(DatabaseProbe probe, Expectations expected, Findings findings) {
        this.probe = probe;
        this.expected = expected;
        this.findings = findings;
    }

    void check() throws SQLException {
        String user = probe.currentUser();
        String database = probe.currentDatabase();
        if (!probe.engineInstalled()) {
            engineMissing(database);
            return;
        }
        mayExecute(user, SEND_EVENTS, "send events");
        if (expected.dedup()) {
            mayExecute(user, SEND_IDEM_EVENTS, "send events with dedup (" + PgQueSinkConfig.DEDUP_KEY + ")");
        }
        if (expected.delays()) {
            mayExecute(user, SEND_EVENTS_AT, "hold events until their due time (" + PgQueSinkConfig.DELAY_HEADER + ", "
                    + PgQueSinkConfig.DELAY_MS + ")");
        }
        if (expected.exactlyOnce()) {
            mayExecute(user, SINK_OFFSETS, "read the stored Kafka offsets (" + EngineConfigDef.DELIVERY_GUARANTEE + "=exactly_once)");
            mayExecute(user, SINK_COMMIT_OFFSETS, "store Kafka offsets (" + EngineConfigDef.DELIVERY_GUARANTEE + "=exactly_once)");
        }
        if (!probe.canExecute(QUEUE_INFO)) {
            return; // cannot look at queues; the missing writer role is already reported
        }
        boolean mayCreate = probe.canExecute(CREATE_QUEUE);
        for (Map.Entry<String, String> entry : expected.queueKeys().entrySet()) {
            String queue = entry.getKey();
            if (probe.queueExists(queue)) {
                continue;
            }
            if (!expected.autoCreate()) {
                findings.add(entry.getValue(), "Queue '" + queue + "' does not exist in database '" + database
                        + "'. Create it (select pgque.create_queue('" + queue + "')) or set "
                        + PgQueSinkConfig.QUEUE_AUTO_CREATE + "=true");
            } else if (!mayCreate) {
                findings.add(PgQueSinkConfig.QUEUE_AUTO_CREATE, "Queue '" + queue + "' does not exist and user '" + user
                        + "' may not create it (" + CREATE_QUEUE + " needs the pgque_admin role). Create the queue "
                        + "beforehand, or grant pgque_admin to the user");
            }
        }
    }

    private void engineMissing(String database) throws SQLException {
        if (expected.schemaInstall() == SchemaInstall.NONE) {
            findings.add(EngineConfigDef.SCHEMA_INSTALL, "The PgQue engine is not installed in database '" + database
                    + "'. Install it (the pgque.sql script of this release), or set " + EngineConfigDef.SCHEMA_INSTALL
                    + "=if_missing to let the connector install it");
        } else {
            probe.installProblem("install it beforehand and set " + EngineConfigDef.SCHEMA_INSTALL + "=none")
                    .ifPresent(problem -> findings.add(EngineConfigDef.SCHEMA_INSTALL, problem));
        }
        if (!expected.autoCreate()) {
            for (Map.Entry<String, String> entry : expected.queueKeys().entrySet()) {
                findings.add(entry.getValue(), "Queue '" + entry.getKey() + "' does not exist: the engine is not "
                        + "installed yet, and " + PgQueSinkConfig.QUEUE_AUTO_CREATE + "=false. Create the queue after "
                        + "installing the engine, or set " + PgQueSinkConfig.QUEUE_AUTO_CREATE + "=true");
            }
        }
    }

    private void mayExecute(String user, String signature, String what) throws SQLException {
        if (!probe.canExecute(signature)) {
            findings.add(ConnectionConfigDef.USER, "User '" + user + "' may not " + what + ": it lacks EXECUTE on "
                    + signature + ". Grant it the writer role: GRANT pgque_writer TO " + user);
        }
    }
}

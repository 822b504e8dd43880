/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Makes the sink's writes fail for good while armed, so its tasks fail (not retry): a trigger on
 * the queue's event tables raises {@code insufficient_privilege}, an error the sink treats as a
 * set-up problem that no retry fixes. Disarmed, the tables behave as before; an operator's
 * "fix the grant, restart the task" in miniature.
 */
final class SinkFailureSwitch {

    private final DataSource db;

    SinkFailureSwitch(DataSource db) {
        this.db = db;
    }

    /** Installs the (disarmed) trigger on every event table of the queue; run once, after the queue exists. */
    void install() throws SQLException {
        exec("create table public.pipeline_fault (sink_writes_fail boolean not null)");
        exec("insert into public.pipeline_fault values (false)");
        exec("create function public.pipeline_fail_sink() returns trigger language plpgsql as $$ begin "
                + "if (select sink_writes_fail from public.pipeline_fault) then "
                + "raise exception 'injected fault: writes to the queue are refused' using errcode = '42501'; "
                + "end if; return new; end $$");
        // The queue's rotating tables inherit from the one named by queue_data_pfx.
        exec("do $$ declare t regclass; begin "
                + "for t in select i.inhrelid::regclass from pg_inherits i where i.inhparent = "
                + "(select queue_data_pfx from pgque.queue where queue_name = '" + Pipeline.QUEUE + "')::regclass loop "
                + "execute format('create trigger pipeline_fail_sink before insert on %s for each statement "
                + "execute function public.pipeline_fail_sink()', t); end loop; end $$");
    }

    void arm() throws SQLException {
        exec("update public.pipeline_fault set sink_writes_fail = true");
    }

    void disarm() throws SQLException {
        exec("update public.pipeline_fault set sink_writes_fail = false");
    }

    private void exec(String sql) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.PgCronServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 15 item 4, end to end against a real pg_cron (the system's PostgreSQL 15 with Debian's
 * postgresql-15-cron, see {@link PgCronServer}): start() schedules the ticker loop, retries and
 * maintenance; with no connector and nobody calling ticker(), events sent to a queue reach its
 * consumer; status() reports the jobs; stop() removes them and the running loop ends.
 *
 * <p>Debian 12 ships pg_cron 1.4, which schedules in whole minutes only: there the ticker job
 * starts once a minute and its loop ticks for the whole minute, so the first tick may take up to
 * a minute to come.
 */
class PgCronTickingIT {

    private static final List<String> JOBS = List.of("pgque_maint", "pgque_retry_events", "pgque_rotate_step2", "pgque_ticker");
    private static final Duration FIRST_RUN = Duration.ofSeconds(240);

    private static PgCronServer server;
    private static Sql sql;

    @BeforeAll
    static void startServer() {
        server = PgCronServer.start().installEngineAndPgCron();
        sql = new Sql(server.superuser());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static List<String> scheduledJobs() {
        return sql.rows("select jobname from cron.job where jobname like 'pgque%' order by jobname").stream()
                .map(r -> (String) r.get("jobname")).toList();
    }

    private static Map<String, String> status() {
        return sql.rows("select * from pgque.status()").stream()
                .collect(Collectors.toMap(r -> (String) r.get("component"), r -> (String) r.get("status")));
    }

    private static boolean tickerLoopRunning() {
        return sql.oneLong("select count(*) from pg_stat_activity where query = 'CALL pgque.ticker_loop()'"
                + " and state = 'active'") > 0;
    }

    @Test
    void eventsFlowWithTicksFromPgCronAloneAndStopEndsTheTicking() {
        sql.createQueue("cron_q");
        sql.subscribe("cron_q", "c");
        assertEquals("manual", status().get("scheduler"));

        // The retry job of engines before 0.5.0, as an upgraded database still has it: start() replaces it.
        sql.exec("select cron.schedule('pgque_retry', '* * * * *', 'SELECT pgque.maint_retry_events()')");
        sql.exec("select pgque.start()");
        sql.exec("select pgque.start()"); // idempotent: the same four jobs
        assertEquals(JOBS, scheduledJobs());
        // PgQue's config columns name the ticker's and the maintenance job
        assertEquals(1, sql.oneLong("select count(*) from pgque.config c"
                + " where c.ticker_job_id = (select jobid from cron.job where jobname = 'pgque_ticker')"
                + " and c.maint_job_id = (select jobid from cron.job where jobname = 'pgque_maint')"));
        Map<String, String> scheduled = status();
        assertEquals("pg_cron", scheduled.get("scheduler"), scheduled.toString());
        for (String job : JOBS) {
            assertEquals("active", scheduled.get("job " + job), scheduled.toString());
        }

        List<Long> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sent.add(sql.send("cron_q", "cron-" + i)); // each in its own transaction
        }
        // nobody calls ticker(): only pg_cron's ticker loop can make these events deliverable
        List<Long> received = new ArrayList<>();
        boolean all = Sql.await(FIRST_RUN, Duration.ofMillis(500), () -> {
            List<Msg> got = sql.receive("cron_q", "c", 100);
            if (!got.isEmpty()) {
                got.forEach(m -> received.add(m.msgId()));
                sql.ack(got.get(0).batchId());
            }
            return received.size() >= sent.size();
        });
        assertTrue(all, "events delivered by pg_cron's ticks, got " + received + "\n" + sql.rows(
                "select * from cron.job_run_details order by runid desc limit 5") + "\n" + server.serverLog());
        assertEquals(sent, received);
        assertTrue(tickerLoopRunning() || sql.oneLong("select count(*) from cron.job_run_details d join cron.job j"
                + " using (jobid) where j.jobname = 'pgque_ticker'") > 0, "the ticks came from the ticker job");

        // later events keep flowing: the loop keeps ticking within its window
        long more = sql.send("cron_q", "cron-more");
        assertTrue(Sql.await(FIRST_RUN, Duration.ofMillis(200), () -> {
            List<Msg> got = sql.receive("cron_q", "c", 100);
            got.stream().findFirst().ifPresent(m -> sql.ack(m.batchId()));
            return got.stream().anyMatch(m -> m.msgId() == more);
        }), "a later event is delivered too");

        sql.exec("select pgque.stop()");
        assertEquals(List.of(), scheduledJobs());
        assertEquals("manual", status().get("scheduler"));
        assertEquals(0, sql.oneLong("select count(*) from pgque.config where ticker_job_id is not null or maint_job_id is not null"));
        assertTrue(Sql.await(Duration.ofSeconds(30), Duration.ofMillis(100), () -> !tickerLoopRunning()),
                "the running ticker loop ends within a second or so of stop()");
        sql.exec("select pgque.stop()"); // harmless when nothing is scheduled
    }
}

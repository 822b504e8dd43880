/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL before 18 parses and plans the body of a SQL-language function that it cannot
 * inline on every call (about 0.1 ms each, several per send, receive or ack before engine
 * 0.3.2); PL/pgSQL keeps its plans for the session. So a SQL-language function in the engine is
 * either one the planner inlines, or one that runs off the hot path (set-up, operators,
 * monitoring); everything a send, receive, ack, read-ahead or tick calls is PL/pgSQL.
 */
class FunctionPlanningIT {

    /**
     * SQL-language functions that cannot be inlined ({@code SECURITY DEFINER} or a {@code SET}
     * clause) and are fine as they are: none runs on a send, receive, ack, read-ahead or tick.
     */
    private static final Set<String> OFF_THE_HOT_PATH = Set.of(
            "consumer_stats()",
            "coop_unregister_member(text,text,integer)",
            "cron_jobs()",
            "cron_version()",
            "drop_queue(text)",
            "force_tick(text)",
            "get_batch_cursor(bigint,text,integer)",
            "get_batch_info(bigint)",
            "get_consumer_info()",
            "get_consumer_info(text)",
            "get_consumer_info(text,text)",
            "get_queue_info()",
            "get_queue_info(text)",
            "hook_retry_held_owners(integer)",
            "partition_resizing(integer,text)",
            "quote_fqname(text)",
            "register_consumer(text,text)",
            "resize_blockers(integer,text)",
            "scheduler_retired_jobs()",
            "slot_consumer_names(text,integer)",
            "subscribe_subconsumer(text,text,text,boolean)",
            "tick_backlog(integer)",
            "timetable_jobs()",
            "timetable_schedule_sql()",
            "uninstall_dependents()",
            "unsubscribe_subconsumer(text,text,text,integer)",
            "version()",
            "version_at_least(text,text)");

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("function_planning").installEngine().superuser());
    }

    @Test
    void sqlFunctionsThatCannotBeInlinedAreOnlyTheOffThePathOnes() {
        List<Map<String, Object>> rows = sql.rows("""
                select regexp_replace(replace(p.oid::regprocedure::text, 'pgque.', ''), ', ?', ',', 'g') as function
                  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                  join pg_language l on l.oid = p.prolang
                 where n.nspname = 'pgque' and l.lanname = 'sql' and (p.prosecdef or p.proconfig is not null)""");
        Set<String> found = rows.stream().map(r -> (String) r.get("function"))
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> unexpected = new TreeSet<>(found);
        unexpected.removeAll(OFF_THE_HOT_PATH);
        assertEquals(Set.of(), unexpected, "SQL-language functions planned on every call: write them in PL/pgSQL, "
                + "or list them here if nothing on a send, receive, ack or tick calls them");
        Set<String> gone = new TreeSet<>(OFF_THE_HOT_PATH);
        gone.removeAll(found);
        assertEquals(Set.of(), gone, "listed as SQL-language functions, but the engine has none of that signature");
    }

    /** Every slot read matches subscriptions by these; inlined, they cost no call at all. */
    @Test
    void theSlotNameAndHashFunctionsAreInlined() {
        String plan = explainVerbose("select pgque.slot_consumer_name(co_name, co_id, 4), pgque.slot_of(co_name, 4) "
                + "from pgque.consumer");
        assertFalse(plan.contains("slot_consumer_name"), plan);
        assertFalse(plan.contains("slot_of"), plan);
        assertTrue(plan.contains("hashtextextended"), plan);
    }

    /**
     * PL/pgSQL keeps a statement's plan for the session. Planned while the statistics said the
     * engine's tables were nearly empty (a fresh install, or queues just dropped), a key lookup
     * would scan its table whole for as long as the connection lives, however large the table
     * grows; the source benchmark's connectors paid ten times their CPU a slot batch that way until
     * autovacuum analyzed the tables. So a slot batch looks up its lease, subscription and ticks
     * each by its key through an index, whatever the statistics say: no sequential scan of those
     * tables and no index read whole (as a join planned then did). The window's own scan of the
     * event tables is left to the planner. The plans come from auto_explain, as notices to this
     * session.
     */
    @Test
    void aSlotBatchLooksUpItsRowsByIndexWhateverTheStatisticsSay() throws Exception {
        Sql fresh = new Sql(EmbeddedPg.newDatabase("planning_stats").installEngine().superuser());
        String q = "stats";
        fresh.createQueue(q);
        fresh.exec("select pgque.subscribe_partitioned(?, 'c', 2)", q);
        fresh.exec("select pgque.claim_slot(?, 'c', 0, 'w|secret', '10 minutes')", q);
        fresh.tick(q);
        for (String table : List.of("queue", "tick", "consumer", "subscription", "partition_consumer",
                "partition_slot", "partition_block", "partition_handout")) {
            fresh.exec("vacuum analyze pgque." + table); // a page or less each: a full scan looks cheapest
        }
        Set<String> scannedWhole = new TreeSet<>();
        Long batch = null;
        try (Connection c = fresh.connect(); Statement s = c.createStatement()) {
            s.execute("load 'auto_explain'");
            s.execute("set auto_explain.log_min_duration = 0");
            s.execute("set auto_explain.log_nested_statements = on");
            s.execute("set auto_explain.log_level = notice");
            s.execute("set client_min_messages = notice");
            for (int i = 0; i < 8; i++) { // past the fifth run, when a cached plan may become the generic one
                fresh.exec("select pgque.send_events(?, null, array['{\"n\":1}', '{\"n\":2}'], array['a', 'b'])", q);
                fresh.tick(q);
                try (PreparedStatement read = Sql.prepare(c, "select max(batch_id) from pgque.ack_receive_partitioned("
                        + "?, 'c', 0, 2, 'w|secret', ?::bigint, 100, 1000)", q, batch)) {
                    read.clearWarnings();
                    try (ResultSet rs = read.executeQuery()) {
                        rs.next();
                        batch = rs.getObject(1) == null ? batch : rs.getLong(1);
                    }
                    for (SQLWarning w = read.getWarnings(); w != null; w = w.getNextWarning()) {
                        scannedWhole.addAll(readWhole(w.getMessage()));
                    }
                }
            }
        }
        assertNotNull(batch, "the slot read batches");
        assertEquals(Set.of(), scannedWhole, "the engine's tables a slot batch read whole");
    }

    /** A scan of one of the engine's own tables (not an event table) in a plan, and its table. */
    private static final Pattern ENGINE_TABLE_SCAN = Pattern.compile(
            "(Seq Scan|Index Scan|Index Only Scan)( Backward)?( using \\S+)? on (queue|tick|consumer|subscription"
                    + "|partition_consumer|partition_slot|partition_block|partition_handout)\\b");

    /**
     * The engine's tables a plan (auto_explain's text) reads whole: by a sequential scan, or by
     * an index scan without an index condition (a whole index in key order).
     */
    private static Set<String> readWhole(String plan) {
        Set<String> whole = new TreeSet<>();
        String[] lines = plan.split("\n");
        for (int i = 0; i < lines.length; i++) {
            Matcher m = ENGINE_TABLE_SCAN.matcher(lines[i]);
            if (!m.find()) {
                continue;
            }
            boolean keyed = false;
            for (int j = i + 1; j < lines.length && !lines[j].contains("->"); j++) {
                keyed |= lines[j].trim().startsWith("Index Cond:");
            }
            if (m.group(1).equals("Seq Scan") || !keyed) {
                whole.add(m.group(4) + " (" + m.group(1).toLowerCase(java.util.Locale.ROOT) + ")");
            }
        }
        return whole;
    }

    private static String explainVerbose(String query) {
        return sql.rows("explain (verbose, costs off) " + query).stream()
                .map(r -> (String) r.values().iterator().next())
                .collect(Collectors.joining("\n"));
    }
}

/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    private static String explainVerbose(String query) {
        return sql.rows("explain (verbose, costs off) " + query).stream()
                .map(r -> (String) r.values().iterator().next())
                .collect(Collectors.joining("\n"));
    }
}

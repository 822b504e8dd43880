/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * docs/sql-reference.md is typed by hand; this keeps it true to the installed engine
 * ({@code pg_proc}), so it cannot drift: every API function (what {@code pgque_admin} may
 * execute) is documented (a table row, or named in the prose), every table row names a
 * function that exists, a row marked
 * {@code **(invoker)**} is exactly a function that is not {@code SECURITY DEFINER}, and every
 * {@code SECURITY DEFINER} function pins its {@code search_path} with {@code pg_temp} last.
 */
class SqlReferenceIT {

    private static final Path REFERENCE = Path.of("..", "docs", "sql-reference.md");
    /** A function named in the first cell of a table row: {@code `name(}. */
    private static final Pattern NAMED = Pattern.compile("`([a-z_][a-z0-9_]*)\\(");
    /** Any backticked name, alone or called: {@code `name`}, {@code `name(}. */
    private static final Pattern MENTIONED = Pattern.compile("`([a-z_][a-z0-9_]*)[`(]");
    private static final String INVOKER = "**(invoker)**";

    private static Sql sql;
    /** Function name → true when every overload is SECURITY DEFINER, over the API functions. */
    private static Map<String, Boolean> api;
    /** The same over every function and procedure in the schema (some are the owner's alone, e.g. uninstall()). */
    private static Map<String, Boolean> all;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("sql_reference").installEngine().superuser());
        api = new TreeMap<>();
        all = new TreeMap<>();
        for (Map<String, Object> row : sql.rows("""
                select p.proname, bool_and(p.prosecdef) as definer,
                       bool_or(has_function_privilege('pgque_admin', p.oid, 'EXECUTE')) as api
                  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                 where n.nspname = 'pgque' and p.prokind in ('f', 'p')
                 group by p.proname""")) {
            all.put((String) row.get("proname"), (Boolean) row.get("definer"));
            if ((Boolean) row.get("api")) {
                api.put((String) row.get("proname"), (Boolean) row.get("definer"));
            }
        }
    }

    @Test
    void everyApiFunctionIsDocumentedAndEveryDocumentedFunctionExists() throws IOException {
        Map<String, Boolean> documented = documented();
        assertEquals(Set.of(), difference(api.keySet(), documented.keySet()),
                "API functions without a row in " + REFERENCE);
        assertEquals(Set.of(), difference(documented.keySet(), all.keySet()),
                "rows in " + REFERENCE + " naming no function of the installed engine");
    }

    @Test
    void theReferenceMarksExactlyTheFunctionsThatRunAsTheCaller() throws IOException {
        Map<String, Boolean> documented = documented();
        Set<String> wrong = new TreeSet<>();
        documented.forEach((name, definer) -> {
            if (all.containsKey(name) && !all.get(name).equals(definer)) {
                wrong.add(name + (all.get(name) ? " is SECURITY DEFINER but marked " + INVOKER
                        : " runs as the caller but is not marked " + INVOKER));
            }
        });
        assertEquals(Set.of(), wrong);
    }

    @Test
    void securityDefinerFunctionsPinSearchPathWithPgTempLast() {
        List<Map<String, Object>> unpinned = sql.rows("""
                select p.oid::regprocedure::text as function, array_to_string(p.proconfig, ' ') as config
                  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                 where n.nspname = 'pgque' and p.prosecdef
                   and not coalesce('search_path=pgque, pg_catalog, pg_temp' = any (p.proconfig), false)
                 order by 1""");
        assertEquals(List.of(), unpinned, "SECURITY DEFINER functions without search_path=pgque, pg_catalog, pg_temp");
    }

    /**
     * Name → SECURITY DEFINER (not marked invoker): every function named in the first cell of a
     * table row, and every API function the prose names in backticks (as {@code `next_batch`}
     * or {@code `next_batch(…)`}), which the page's rule makes SECURITY DEFINER.
     */
    private static Map<String, Boolean> documented() throws IOException {
        Map<String, Boolean> names = new TreeMap<>();
        List<String> lines = Files.readAllLines(REFERENCE);
        for (String line : lines) {
            if (!line.startsWith("| ")) {
                continue;
            }
            int end = line.indexOf(" |", 1);
            String firstCell = line.substring(2, end < 0 ? line.length() : end);
            Matcher m = NAMED.matcher(firstCell);
            while (m.find()) {
                names.merge(m.group(1), !firstCell.contains(INVOKER), Boolean::logicalAnd);
            }
        }
        Matcher prose = MENTIONED.matcher(String.join("\n", lines));
        while (prose.find()) {
            if (api.containsKey(prose.group(1))) {
                names.putIfAbsent(prose.group(1), true);
            }
        }
        return names;
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> d = new TreeSet<>(a);
        d.removeAll(b);
        return d;
    }
}

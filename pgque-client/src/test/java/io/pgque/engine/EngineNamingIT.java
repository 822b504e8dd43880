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

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The naming rules of the engine's internal functions (src/main/sql/README.md), checked on the
 * installed catalog. An internal function is one only the engine's owner may execute; its name
 * starts with the noun it works on, and its parameters say what they hold. The API keeps the
 * names PgQue gave it (and this engine's additions follow PgQue's style), so it is not checked here.
 */
class EngineNamingIT {

    /** The nouns an internal function's name may start with. */
    private static final String NOUNS = "hook|queue|event|tick|sub|consumer|batch|window|retry|dead_letter|dlq|coop"
            + "|partition|slot|read_ahead|resize|idem|delayed|sink|scheduler|cron|timetable|uninstall|version|seq|txid|role";
    /** Functions only the owner may execute that are PgQue's API, named as there. */
    private static final String OWNERS_API = "'uninstall', 'insert_event_bulk'";
    private static final String INTERNAL = """
            select p.oid, p.oid::regprocedure::text as function, p.proname
              from pg_proc p
             where p.pronamespace = 'pgque'::regnamespace
               and not exists (select 1 from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                                where a.grantee <> p.proowner and a.privilege_type = 'EXECUTE')
               and p.proname not in (%s)""".formatted(OWNERS_API);

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("engine_naming").installEngine().superuser());
    }

    @Test
    void internalFunctionsAreNamedNounFirst() {
        assertEquals(List.of(), names("select function from (" + INTERNAL + ") f where proname !~ '^(" + NOUNS + ")_[a-z0-9_]+$'"
                + " order by 1"));
    }

    /**
     * Every parameter of an internal function is {@code i_<what>}: a queue's name is
     * {@code i_queue}, a consumer's {@code i_consumer} (text), a queue's row {@code i_q}, a
     * subscription's row {@code i_sub} (or its role, {@code i_main}).
     */
    @Test
    void internalParametersSayWhatTheyHold() {
        String wrong = """
                  (a.name !~ '^i_[a-z0-9_]+$'
                   or (a.name in ('i_queue', 'i_consumer') and a.type <> 'text'::regtype)
                   or (a.type = 'pgque.queue'::regtype and a.name <> 'i_q')
                   or (a.type = 'pgque.subscription'::regtype and a.name not in ('i_sub', 'i_main')))""";
        // Input parameters: with OUT parameters the types are in proallargtypes, else proargtypes.
        assertEquals(List.of(), names("""
                select f.function || ' ' || a.name || ' ' || a.type::regtype
                  from (%1$s) f
                  join pg_proc p on p.oid = f.oid
                 cross join lateral unnest(p.proargnames, p.proallargtypes::oid[], p.proargmodes) as a(name, type, mode)
                 where a.mode in ('i', 'b') and %2$s
                union all
                select f.function || ' ' || a.name || ' ' || a.type::regtype
                  from (%1$s) f
                  join pg_proc p on p.oid = f.oid
                 cross join lateral unnest(p.proargnames, p.proargtypes::oid[]) as a(name, type)
                 where p.proallargtypes is null and %2$s
                 order by 1""".formatted(INTERNAL, wrong)));
    }

    private static List<String> names(String query) {
        return sql.rows(query).stream().map(Map::values).map(v -> (String) v.iterator().next()).toList();
    }
}

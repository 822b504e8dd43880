--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- The script's DDL helpers, procedures so that psql prints CALL for each. An upgrade runs while producers and consumers work, so a change
-- takes its lock only when it changes something: ALTER TABLE ... IF NOT EXISTS would take an
-- ACCESS EXCLUSIVE lock on the table even when the column is there, queueing every client behind
-- the script for the rest of its transaction. Functions of the session's pg_temp, gone with it.
--
-- Layer: bootstrap (README.md). Calls nothing of the engine.

-- Runs i_ddl when i_needed: one change whose need the caller reads from the catalog (with
-- functions: CALL takes no subquery; a DO block reads what a function cannot).
CREATE OR REPLACE PROCEDURE pg_temp.pgque_ddl_if(i_needed boolean, i_ddl text)
LANGUAGE plpgsql AS $$
BEGIN
    IF i_needed THEN
        EXECUTE i_ddl;
    END IF;
END
$$;

-- Adds column i_column (i_definition: its type, default and checks) to table i_table unless the
-- table has it.
CREATE OR REPLACE PROCEDURE pg_temp.pgque_add_column(i_table text, i_column text, i_definition text)
LANGUAGE plpgsql AS $$
DECLARE
    v_missing boolean := NOT EXISTS (SELECT 1 FROM pg_attribute
                                      WHERE attrelid = i_table::regclass AND attname = i_column AND NOT attisdropped);
BEGIN
    CALL pg_temp.pgque_ddl_if(v_missing, format('ALTER TABLE %s ADD COLUMN %I %s', i_table, i_column, i_definition));
END
$$;

-- Creates or replaces view i_view as i_query unless it is that view already (a replacement locks
-- the view against its readers until the script commits). Compared as PostgreSQL prints them,
-- through a scratch view of the session's own.
CREATE OR REPLACE PROCEDURE pg_temp.pgque_define_view(i_view text, i_query text)
LANGUAGE plpgsql AS $$
DECLARE
    v_same boolean;
BEGIN
    IF to_regclass(i_view) IS NOT NULL THEN
        EXECUTE 'CREATE OR REPLACE TEMP VIEW pgque_view_probe AS ' || i_query;
        v_same := pg_get_viewdef('pgque_view_probe'::regclass) = pg_get_viewdef(i_view::regclass);
        DROP VIEW pgque_view_probe;
        IF v_same THEN
            RETURN;
        END IF;
    END IF;
    EXECUTE format('CREATE OR REPLACE VIEW %s AS %s', i_view, i_query);
END
$$;

-- The objects outside schema pgque that depend on any of i_routines (a user's view over an engine
-- function, say), described, or NULL: dropping a routine they depend on would fail, naming only
-- the first.
CREATE OR REPLACE FUNCTION pg_temp.pgque_dependents(i_routines regprocedure[])
RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT string_agg(DISTINCT o.type || ' ' || o.identity || ' (on ' || r.identity || ')', '; ')
      FROM pg_depend d
     CROSS JOIN LATERAL pg_identify_object(d.classid, d.objid, d.objsubid) o
     CROSS JOIN LATERAL pg_identify_object(d.refclassid, d.refobjid, 0) r
     WHERE d.refclassid = 'pg_proc'::regclass
       AND d.refobjid = ANY (i_routines::oid[])
       AND d.deptype = 'n'
       AND NOT (d.classid = 'pg_proc'::regclass
                AND (SELECT p.pronamespace FROM pg_proc p WHERE p.oid = d.objid) = to_regnamespace('pgque'))
$$;

-- Drops i_routines, unless objects outside schema pgque depend on one of them (a user's view or
-- function over it): then the upgrade stops, naming them, and changes nothing. i_what says which
-- functions these are, i_hint what to build the dependents on instead.
CREATE OR REPLACE PROCEDURE pg_temp.pgque_drop_routines(i_routines regprocedure[], i_what text, i_hint text)
LANGUAGE plpgsql AS $$
DECLARE
    v_dependents text := pg_temp.pgque_dependents(i_routines);
BEGIN
    IF v_dependents IS NOT NULL THEN
        RAISE EXCEPTION 'cannot upgrade pgque: objects outside schema pgque depend on engine functions %: %', i_what, v_dependents
            USING ERRCODE = '2BP01',
                  HINT = 'Drop them (their owner or a superuser can), run the script again, then create them anew' || i_hint || '.';
    END IF;
    FOR i IN 1 .. coalesce(cardinality(i_routines), 0) LOOP
        EXECUTE format('DROP ROUTINE %s', i_routines[i]);
    END LOOP;
END
$$;

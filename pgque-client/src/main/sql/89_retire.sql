--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- The end of an upgrade that replaced functions in place (05_upgrade.sql): the internal functions
-- of the installed engine that this script did not create again are the ones this version no
-- longer has, and go.
--
-- Layer: bootstrap (README.md), after every file has created what this version has and before
-- 90_grants.sql, whose grants touch every function (a row version this file compares).

DO $retire$
DECLARE
    v_obsolete regprocedure[];
    v_dependents text;
BEGIN
    -- Created or replaced by this script: a new row version.
    v_obsolete := ARRAY(SELECT u.routine FROM pg_temp.pgque_upgrade_internal u
                          JOIN pg_proc p ON p.oid = u.routine
                         WHERE p.xmin::text = u.row_version);
    v_dependents := pg_temp.pgque_dependents(v_obsolete);
    IF v_dependents IS NOT NULL THEN
        RAISE EXCEPTION 'cannot upgrade pgque: objects outside schema pgque depend on engine functions this version removes: %',
            v_dependents
            USING ERRCODE = '2BP01',
                  HINT = 'Drop them (their owner or a superuser can), run the script again, then create them anew; '
                         'build them on the API functions of docs/sql-reference.md, which an upgrade keeps.';
    END IF;
    FOR i IN 1 .. coalesce(cardinality(v_obsolete), 0) LOOP
        EXECUTE format('DROP ROUTINE %s', v_obsolete[i]);
    END LOOP;
END
$retire$;

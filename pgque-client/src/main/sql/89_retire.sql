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
BEGIN
    -- The internal functions this script did not create again: they keep the row version
    -- 05_upgrade.sql noted (creating or replacing a function writes a new one).
    v_obsolete := ARRAY(SELECT u.routine FROM pg_temp.pgque_upgrade_internal u
                          JOIN pg_proc p ON p.oid = u.routine
                         WHERE p.xmin::text = u.row_version);
    CALL pg_temp.pgque_drop_routines(v_obsolete, 'this version removes',
        '; build them on the API functions of docs/sql-reference.md, which an upgrade keeps');
END
$retire$;

--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- How an upgrade replaces functions, so that it leaves exactly what a fresh install creates (no
-- function an older engine had and this one has not, no parameter name it used: EngineUpgrade
-- compares an upgraded database with a fresh install, functions and grants), and so that
-- clients in the middle of a transaction when it commits carry on.
--
-- Layer: bootstrap (README.md). Runs before any file below creates anything; 89_retire.sql
-- finishes what it starts.
--
-- A re-run, or an upgrade from the last release (UPGRADE_IN_PLACE_FROM below), replaces every
-- function in place: CREATE OR REPLACE keeps a function's identity, so a session whose plans
-- name it carries on with its new body. The internal functions this version no longer has are
-- noted here and dropped by 89_retire.sql once everything else exists; an internal function that
-- keeps its name and argument types but changes its parameter names or result (which CREATE OR
-- REPLACE cannot do) is listed in CHANGED below and dropped first. An upgrade from an older
-- release drops every internal function first, as their names and parameters changed more
-- than a list keeps track of; stop the clients for it. An API function (one a role may execute)
-- is never dropped here: callers and grants depend on it. Retiring one takes a DROP FUNCTION IF
-- EXISTS line at the end of this file.

-- The internal functions an upgrade may have to drop: every function of the schema that only its
-- owner may execute (90_grants.sql revokes them from every role), pgque.role_name() aside (01_guard.sql
-- has just created it and the files below use it); with their row version, by which 89_retire.sql
-- tells the ones this script re-created from the ones it did not.
CREATE TEMP TABLE pgque_upgrade_internal ON COMMIT DROP AS
SELECT p.oid::regprocedure AS routine, p.xmin::text AS row_version
  FROM pg_proc p
 WHERE p.pronamespace = to_regnamespace('pgque')
   AND p.oid <> coalesce(to_regprocedure('pgque.role_name(text)'), 0)
   AND NOT EXISTS (SELECT 1 FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                    WHERE a.grantee <> p.proowner AND a.privilege_type = 'EXECUTE');

DO $upgrade$
DECLARE
    -- The last release, whose functions this one replaces in place.
    c_in_place_from CONSTANT text := '0.4.2';
    -- Internal functions of that release whose parameter names or result this version changes.
    c_changed CONSTANT text[] := '{}';
    v_from text := current_setting('pgque.upgrade_from');
    v_drop regprocedure[];
BEGIN
    IF v_from = '' THEN
        RETURN;  -- a fresh install
    END IF;
    IF pg_temp.pgque_version_array(v_from) >= pg_temp.pgque_version_array(c_in_place_from) THEN
        v_drop := ARRAY(SELECT routine FROM pg_temp.pgque_upgrade_internal WHERE routine::text = ANY (c_changed));
    ELSE
        v_drop := ARRAY(SELECT routine FROM pg_temp.pgque_upgrade_internal);
    END IF;
    CALL pg_temp.pgque_drop_routines(v_drop, 'it replaces',
        '; build them on the API functions of docs/sql-reference.md, which an upgrade keeps');
    DELETE FROM pg_temp.pgque_upgrade_internal WHERE routine = ANY (v_drop);
END
$upgrade$;

-- API functions whose parameter names or result this version changed: the form an older engine
-- created is dropped (CREATE OR REPLACE cannot change either) and the files below create the new
-- one; 90_grants.sql grants it again. start_timetable takes ticks per second, as PgQue's does;
-- dlq_replay_all returns PgQue's (replayed, failed, first_error).
DO $api$
DECLARE
    v_changed regprocedure[] := ARRAY(
        SELECT p.oid::regprocedure FROM pg_proc p
         WHERE p.pronamespace = to_regnamespace('pgque')
           AND ((p.proname = 'start_timetable' AND p.proargnames IS DISTINCT FROM '{i_ticks_per_second}')
                OR (p.proname = 'dlq_replay_all' AND p.prorettype <> 'record'::regtype)));
BEGIN
    CALL pg_temp.pgque_drop_routines(v_changed, 'whose signature changes', '');
END
$api$;

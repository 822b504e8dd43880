--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Running the engine from inside the database: pg_cron or pg_timetable jobs for the ticker and
-- maintenance, and the sub-second ticker loop those jobs call. Admin only unless noted in
-- 90_grants.sql.
--
-- Layer: on top (README.md). Calls any earlier file.

CREATE OR REPLACE FUNCTION pgque.set_tick_period_ms(p_period_ms integer)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF p_period_ms IS NULL OR p_period_ms < 1 OR p_period_ms > 1000 OR 1000 % p_period_ms <> 0 THEN
        RAISE EXCEPTION 'tick_period_ms must be an exact divisor of 1000 between 1 and 1000 (got %)', p_period_ms
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', HINT = 'For example 1000, 500, 250, 200, 100, 50 or 10.';
    END IF;
    UPDATE pgque.config SET tick_period_ms = p_period_ms;
    RETURN p_period_ms;
END
$$;

-- How long ticker_loop() sleeps before its next round: until the next multiple of
-- tick_period_ms since i_start, the loop's start; NULL once that lies past the loop's window
-- (ticker_loop_ms), when the loop ends. The settings are read afresh every round, so
-- set_tick_period_ms() and stop() take effect within one period. The loop's arithmetic lives here
-- because this function pins its search_path and the loop cannot.
CREATE OR REPLACE FUNCTION pgque.ticker_loop_pause(i_start timestamptz)
RETURNS float8
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_period int;
    v_window int;
    v_elapsed float8;
    v_next float8;
BEGIN
    SELECT c.tick_period_ms, c.ticker_loop_ms INTO v_period, v_window FROM pgque.config c;
    v_elapsed := date_part('epoch', clock_timestamp() - i_start) * 1000;
    v_next := (floor(v_elapsed / v_period) + 1) * v_period;
    IF v_next >= v_window THEN
        RETURN NULL;
    END IF;
    RETURN (v_next - v_elapsed) / 1000.0;
END
$$;

-- Calls ticker() every tick_period_ms for one loop window, committing after each call, so each
-- tick is its own transaction and the snapshot is held only briefly. Run by the pg_cron ticker
-- job (or any scheduler) once per window, as the engine's owner. A procedure with the caller's
-- rights and no SET clause: PostgreSQL allows COMMIT only there. So its body names nothing but
-- schema-qualified functions and uses no operator: a name or operator it left to the caller's
-- search_path could resolve to a planted one of an exactly matching signature, run as the owner.
CREATE OR REPLACE PROCEDURE pgque.ticker_loop()
LANGUAGE plpgsql AS $$
DECLARE
    v_start timestamptz := pg_catalog.clock_timestamp();
    v_pause float8;
BEGIN
    LOOP
        PERFORM pgque.ticker();
        COMMIT;
        v_pause := pgque.ticker_loop_pause(v_start);
        EXIT WHEN v_pause IS NULL;
        PERFORM pg_catalog.pg_sleep(v_pause);
        COMMIT;
    END LOOP;
END
$$;

-- Internal: the pg_cron jobs start() manages, with their commands and their periods where
-- pg_cron can schedule in seconds (1.5 and newer) and where it cannot.
CREATE OR REPLACE FUNCTION pgque.cron_jobs()
RETURNS TABLE (jobname text, command text, every_seconds text, every_minute text)
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    VALUES ('pgque_ticker',       'CALL pgque.ticker_loop()',                      '1 seconds',  '* * * * *'),
           ('pgque_retry_events', 'SELECT pgque.maint_retry_events()',             '30 seconds', '* * * * *'),
           ('pgque_maint',        'SELECT pgque.maint()',                          '30 seconds', '* * * * *'),
           ('pgque_rotate_step2', 'SELECT pgque.maint_rotate_tables_step2()',      '10 seconds', '* * * * *')
$$;

-- Internal: the names of jobs that engines before 0.5.0 scheduled and this one no longer does
-- (the retry job was 'pgque_retry'); starting and stopping remove them too, so an upgraded
-- database does not run the retry mover twice.
CREATE OR REPLACE FUNCTION pgque.scheduler_retired_jobs()
RETURNS SETOF text
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    VALUES ('pgque_retry')
$$;

-- Internal: the installed pg_cron version, or NULL when pg_cron is not installed in this database.
CREATE OR REPLACE FUNCTION pgque.cron_version()
RETURNS text
LANGUAGE sql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'
$$;

-- Internal: why the engine must not call into schema i_schema, which it does not own, with its
-- owner's rights (pg_cron's cron, pg_timetable's timetable), or NULL when it may. 'missing' when
-- the schema or one of i_functions is not there; 'schema owner' when a role other than a
-- superuser or the engine's owner owns the schema; 'object owner' when a function, table or view
-- in it belongs to another role than the schema's owner or a superuser (whoever may create in
-- the schema could otherwise plant an overload or a view the engine would run). Every call into
-- such a schema, and every read of its tables, asks this first.
CREATE OR REPLACE FUNCTION pgque.scheduler_schema_doubt(i_schema text, i_functions text[])
RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_ns oid := to_regnamespace(i_schema);
    v_owner oid;
BEGIN
    IF v_ns IS NULL
       OR EXISTS (SELECT 1 FROM unnest(i_functions) f
                   WHERE NOT EXISTS (SELECT 1 FROM pg_proc p WHERE p.pronamespace = v_ns AND p.proname = f)) THEN
        RETURN 'missing';
    END IF;
    SELECT nspowner INTO v_owner FROM pg_namespace WHERE oid = v_ns;
    IF NOT (SELECT rolsuper FROM pg_roles WHERE oid = v_owner)
       AND v_owner <> (SELECT nspowner FROM pg_namespace WHERE nspname = 'pgque') THEN
        RETURN 'schema owner';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner
                WHERE p.pronamespace = v_ns AND p.proowner <> v_owner AND NOT r.rolsuper)
       OR EXISTS (SELECT 1 FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner
                   WHERE c.relnamespace = v_ns AND c.relowner <> v_owner AND NOT r.rolsuper) THEN
        RETURN 'object owner';
    END IF;
    RETURN NULL;
END
$$;

-- Schedules the ticker loop, retries and maintenance with pg_cron. Idempotent: a second call
-- updates the jobs. The jobs run as the engine's owner (this function runs with its rights).
-- Switching from pg_timetable removes its jobs first, so that nothing ticks twice.
CREATE OR REPLACE FUNCTION pgque.start()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_version text := pgque.cron_version();
    v_cron_db text := current_setting('cron.database_name', true);
    v_seconds boolean;
    v_ids bigint[] := '{}';
    v_id bigint;
    v_ticker bigint;
    v_maint bigint;
    v_doubt text;
    j record;
BEGIN
    IF v_version IS NULL THEN
        RAISE EXCEPTION 'pg_cron extension is not installed. PgQue itself works without pg_cron, but pgque.start() schedules cron jobs. Install pg_cron first, or run pgque.ticker() and pgque.maint() manually.'
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
                  DETAIL = CASE WHEN v_cron_db IS NOT NULL AND v_cron_db <> current_database()
                                THEN format('pg_cron is loaded but keeps its jobs in database %s (cron.database_name).', v_cron_db)
                                WHEN v_cron_db IS NOT NULL
                                THEN 'pg_cron is loaded and keeps its jobs in this database, but CREATE EXTENSION pg_cron has not been run here.'
                                ELSE 'pg_cron is not loaded by this server.' END,
                  HINT = 'Add pg_cron to shared_preload_libraries, set cron.database_name to this database and run '
                         'CREATE EXTENSION pg_cron; or call pgque.ticker(), pgque.maint_retry_events(), pgque.maint() '
                         'and pgque.maint_rotate_tables_step2() from another scheduler (the source connector''s ticker '
                         'duty does).';
    END IF;
    v_doubt := pgque.scheduler_schema_doubt('cron', ARRAY['schedule', 'unschedule']);
    IF v_doubt IS NOT NULL THEN
        RAISE EXCEPTION 'untrusted pg_cron schema owner: %', (SELECT nspowner::regrole FROM pg_namespace WHERE nspname = 'cron')
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:42501',
                  DETAIL = format('Schema cron and everything in it must belong to a superuser or to the owner of schema pgque (%s).',
                                  v_doubt);
    END IF;
    IF (SELECT scheduler FROM pgque.config) = 'pg_timetable' THEN
        PERFORM pgque.timetable_stop_jobs();
    END IF;
    v_seconds := pgque.version_at_least(v_version, '1.5');
    BEGIN
        PERFORM cron.unschedule(c.jobid)
           FROM cron.job c
          WHERE c.jobname IN (SELECT pgque.scheduler_retired_jobs()) AND c.username = current_user;
        FOR j IN SELECT * FROM pgque.cron_jobs() LOOP
            v_id := cron.schedule(j.jobname, CASE WHEN v_seconds THEN j.every_seconds ELSE j.every_minute END, j.command);
            v_ids := v_ids || v_id;
            v_ticker := CASE WHEN j.jobname = 'pgque_ticker' THEN v_id ELSE v_ticker END;
            v_maint := CASE WHEN j.jobname = 'pgque_maint' THEN v_id ELSE v_maint END;
        END LOOP;
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'pgque.start(): the engine''s owner % may not schedule pg_cron jobs: %', current_user, SQLERRM
            USING ERRCODE = '42501', HINT = format('As a superuser: GRANT USAGE ON SCHEMA cron TO %I;', current_user);
    END;
    UPDATE pgque.config SET ticker_loop_ms = CASE WHEN v_seconds THEN 1000 ELSE 60000 END,
                            scheduler = 'pg_cron', scheduler_job_ids = v_ids, ticker_job_id = v_ticker, maint_job_id = v_maint;
END
$$;

-- Internal: removes the engine's pg_cron jobs (those of retired names too) and forgets them in
-- the config, unless pg_timetable is the scheduler. Nothing to call when pg_cron is absent; a
-- warning instead of a call when schema cron is not one the engine may call into.
CREATE OR REPLACE FUNCTION pgque.cron_stop_jobs()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_doubt text;
BEGIN
    UPDATE pgque.config SET ticker_loop_ms = 1000;
    UPDATE pgque.config SET scheduler = NULL, scheduler_job_ids = NULL, ticker_job_id = NULL, maint_job_id = NULL
     WHERE scheduler IS DISTINCT FROM 'pg_timetable';
    IF pgque.cron_version() IS NULL THEN
        RETURN;
    END IF;
    v_doubt := pgque.scheduler_schema_doubt('cron', ARRAY['unschedule']);
    IF v_doubt IS NOT NULL THEN
        RAISE WARNING 'not calling into schema cron (%): it must belong to a superuser or to the owner of schema pgque; remove the engine''s pg_cron jobs by hand',
            v_doubt;
        RETURN;
    END IF;
    PERFORM cron.unschedule(c.jobid)
       FROM cron.job c
      WHERE (c.jobname IN (SELECT jobname FROM pgque.cron_jobs()) OR c.jobname IN (SELECT pgque.scheduler_retired_jobs()))
        AND c.username = current_user;
END
$$;

-- Removes the jobs start() scheduled, and those of start_timetable() when pg_timetable is the
-- scheduler. Safe to call when neither is installed or nothing is scheduled.
CREATE OR REPLACE FUNCTION pgque.stop()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF (SELECT scheduler FROM pgque.config) = 'pg_timetable' THEN
        PERFORM pgque.timetable_stop_jobs();
    END IF;
    PERFORM pgque.cron_stop_jobs();
END
$$;

-- Internal: the pg_timetable jobs start_timetable() manages: the pg_cron jobs, at their periods
-- in seconds, in pg_timetable's interval syntax.
CREATE OR REPLACE FUNCTION pgque.timetable_jobs()
RETURNS TABLE (job_name text, job_schedule text, job_command text)
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT j.jobname, '@every ' || j.every_seconds, j.command FROM pgque.cron_jobs() j
$$;

-- Internal: the statements start_timetable() runs to schedule those jobs, and stop_timetable()
-- to remove them (every value a literal, nothing taken from a table).
CREATE OR REPLACE FUNCTION pgque.timetable_schedule_sql()
RETURNS TABLE (job_name text, schedule_sql text, unschedule_sql text)
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT j.job_name,
           format('SELECT timetable.add_job(job_name => %L, job_schedule => %L, job_command => %L, job_kind => %L)',
                  j.job_name, j.job_schedule, j.job_command, 'SQL'),
           format('SELECT timetable.delete_job(%L)', j.job_name)
      FROM pgque.timetable_jobs() j
$$;

-- Internal: refuses unless pg_timetable's schema and API are installed here and trustworthy
-- (scheduler_schema_doubt): the jobs run whatever timetable.add_job() and delete_job() do with the
-- engine owner's rights. i_api names the functions the caller needs, for the message.
CREATE OR REPLACE FUNCTION pgque.timetable_check(i_caller text, i_api text)
RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_doubt text := pgque.scheduler_schema_doubt('timetable', ARRAY['add_job', 'delete_job']);
BEGIN
    IF v_doubt = 'missing' THEN
        RAISE EXCEPTION 'pg_timetable schema/API is not installed. pgque.%() schedules the ticker with pg_timetable; install pg_timetable in this database first, or use pgque.start() (pg_cron), or run pgque.ticker() and pgque.maint() manually.',
            i_caller USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000';
    END IF;
    IF v_doubt = 'schema owner' THEN
        RAISE EXCEPTION 'untrusted pg_timetable schema owner: %', (SELECT nspowner::regrole FROM pg_namespace WHERE nspname = 'timetable')
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:42501',
                  DETAIL = 'Schema timetable must be owned by a superuser or by the owner of schema pgque.';
    END IF;
    IF v_doubt = 'object owner' THEN
        RAISE EXCEPTION 'untrusted pg_timetable API owner: % must be owned by timetable schema owner', i_api
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:42501',
                  DETAIL = 'Every function, table and view in schema timetable must belong to its owner or a superuser.';
    END IF;
END
$$;

-- Schedules the ticker loop, retries and maintenance with pg_timetable instead of pg_cron, the
-- ticker loop calling ticker() i_ticks_per_second times a second (tick_period_ms becomes
-- 1000 / i_ticks_per_second). Idempotent: a second call replaces the jobs; switching from pg_cron
-- removes its jobs first. The jobs run as the engine's owner.
CREATE OR REPLACE FUNCTION pgque.start_timetable(i_ticks_per_second integer DEFAULT 10)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_ids bigint[] := '{}';
    v_id bigint;
    v_ticker bigint;
    v_maint bigint;
    j record;
BEGIN
    IF i_ticks_per_second IS NULL OR i_ticks_per_second < 1 OR i_ticks_per_second > 1000
       OR 1000 % i_ticks_per_second <> 0 THEN
        RAISE EXCEPTION 'ticks_per_second must be an exact divisor of 1000 between 1 and 1000 (got %)',
            coalesce(i_ticks_per_second::text, 'NULL')
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
                  HINT = 'Ticks per second, for example 1, 2, 4, 5, 10 (the default), 20 or 100.';
    END IF;
    PERFORM pgque.timetable_check('start_timetable', 'add_job/delete_job');
    PERFORM pgque.cron_stop_jobs();
    FOR j IN SELECT format('SELECT timetable.delete_job(%L)', r) AS unschedule_sql FROM pgque.scheduler_retired_jobs() r LOOP
        EXECUTE j.unschedule_sql;
    END LOOP;
    FOR j IN SELECT * FROM pgque.timetable_schedule_sql() LOOP
        EXECUTE j.unschedule_sql;
        EXECUTE j.schedule_sql INTO v_id;
        v_ids := v_ids || v_id;
        v_ticker := CASE WHEN j.job_name = 'pgque_ticker' THEN v_id ELSE v_ticker END;
        v_maint := CASE WHEN j.job_name = 'pgque_maint' THEN v_id ELSE v_maint END;
    END LOOP;
    UPDATE pgque.config SET tick_period_ms = 1000 / i_ticks_per_second, ticker_loop_ms = 1000,
                            scheduler = 'pg_timetable', scheduler_job_ids = v_ids,
                            ticker_job_id = v_ticker, maint_job_id = v_maint;
END
$$;

-- Removes the jobs start_timetable() scheduled.
CREATE OR REPLACE FUNCTION pgque.stop_timetable()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.timetable_check('stop_timetable', 'delete_job');
    PERFORM pgque.timetable_stop_jobs();
END
$$;

-- Internal: stop_timetable() for uninstall(): nothing when pg_timetable is absent, and a warning
-- instead of a call when its schema is not one the engine may call into.
CREATE OR REPLACE FUNCTION pgque.timetable_stop_jobs()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_doubt text;
    j record;
BEGIN
    UPDATE pgque.config SET scheduler = NULL, scheduler_job_ids = NULL, ticker_job_id = NULL, maint_job_id = NULL,
                            ticker_loop_ms = 1000
     WHERE scheduler = 'pg_timetable';
    v_doubt := pgque.scheduler_schema_doubt('timetable', ARRAY['delete_job']);
    IF v_doubt = 'missing' THEN
        RETURN;
    END IF;
    IF v_doubt IS NOT NULL THEN
        RAISE WARNING 'not calling into schema timetable (%): it must belong to a superuser or to the owner of schema pgque; remove the engine''s pg_timetable jobs by hand',
            v_doubt;
        RETURN;
    END IF;
    FOR j IN SELECT unschedule_sql FROM pgque.timetable_schedule_sql()
             UNION ALL
             SELECT format('SELECT timetable.delete_job(%L)', r) FROM pgque.scheduler_retired_jobs() r LOOP
        EXECUTE j.unschedule_sql;
    END LOOP;
END
$$;

-- Internal: a dotted version (1.4-1, 1.6.2) compared with a minimum.
CREATE OR REPLACE FUNCTION pgque.version_at_least(i_version text, i_minimum text)
RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT string_to_array(substring(i_version FROM '^[0-9]+(?:\.[0-9]+)*'), '.')::int[]
           >= string_to_array(i_minimum, '.')::int[]
$$;

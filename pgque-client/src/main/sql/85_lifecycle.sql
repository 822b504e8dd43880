--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Running the engine from inside the database: pg_cron jobs for the ticker and maintenance,
-- the sub-second ticker loop, a health roll-up, and removal. Plus the small PgQ helpers that
-- PgQ/PgQue scripts call. Admin only unless noted in 90_grants.sql.
--
-- Layer: on top (README.md). Calls any earlier file.

-- PgQ helper: the event table a producer inserting directly must write to now.
CREATE OR REPLACE FUNCTION pgque.current_event_table(x_queue_name text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_name = x_queue_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'Event queue not found' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001', DETAIL = format('queue: %s', x_queue_name);
    END IF;
    IF q.queue_disable_insert THEN
        RAISE EXCEPTION 'Writing to queue disabled' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s has disable_insert = true.', x_queue_name);
    END IF;
    RETURN pgque.event_active_table(q.queue_id);
END
$$;

-- PgQ helper: a possibly schema-qualified name quoted for SQL; the first dot separates the
-- schema, which defaults to public.
CREATE OR REPLACE FUNCTION pgque.quote_fqname(i_name text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT CASE WHEN position('.' IN i_name) = 0 THEN 'public.' || quote_ident(i_name)
                ELSE quote_ident(split_part(i_name, '.', 1)) || '.'
                     || quote_ident(substr(i_name, position('.' IN i_name) + 1)) END
$$;

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

-- Calls ticker() every tick_period_ms for one loop window, committing after each call, so each
-- tick is its own transaction and the snapshot is held only briefly. Run by the pg_cron ticker
-- job (or any scheduler) once per window. A procedure with the caller's rights and no SET
-- clause: PostgreSQL allows COMMIT only there. The settings are read afresh every round, so
-- set_tick_period_ms() and stop() take effect within one period.
CREATE OR REPLACE PROCEDURE pgque.ticker_loop()
LANGUAGE plpgsql AS $$
DECLARE
    v_start timestamptz := pg_catalog.clock_timestamp();
    v_period int;
    v_window int;
    v_elapsed float8;
    v_next float8;
BEGIN
    LOOP
        PERFORM pgque.ticker();
        COMMIT;
        SELECT c.tick_period_ms, c.ticker_loop_ms INTO v_period, v_window FROM pgque.config c;
        v_elapsed := pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v_start) * 1000;
        v_next := (pg_catalog.floor(v_elapsed / v_period) + 1) * v_period;
        EXIT WHEN v_next >= v_window;
        PERFORM pg_catalog.pg_sleep((v_next - v_elapsed) / 1000.0);
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
           ('pgque_retry',        'SELECT pgque.maint_retry_events()',             '30 seconds', '* * * * *'),
           ('pgque_maint',        'SELECT pgque.maint()',                          '30 seconds', '* * * * *'),
           ('pgque_rotate_step2', 'SELECT pgque.maint_rotate_tables_step2()',      '10 seconds', '* * * * *')
$$;

-- Internal: the installed pg_cron version, or NULL when pg_cron is not installed in this database.
CREATE OR REPLACE FUNCTION pgque.cron_version()
RETURNS text
LANGUAGE sql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'
$$;

-- Schedules the ticker loop, retries and maintenance with pg_cron. Idempotent: a second call
-- updates the jobs. The jobs run as the engine's owner (this function runs with its rights).
CREATE OR REPLACE FUNCTION pgque.start()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_version text := pgque.cron_version();
    v_cron_db text := current_setting('cron.database_name', true);
    v_seconds boolean;
    v_ids bigint[] := '{}';
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
    v_seconds := pgque.version_at_least(v_version, '1.5');
    BEGIN
        FOR j IN SELECT * FROM pgque.cron_jobs() LOOP
            v_ids := v_ids || cron.schedule(j.jobname, CASE WHEN v_seconds THEN j.every_seconds ELSE j.every_minute END,
                                            j.command);
        END LOOP;
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'pgque.start(): the engine''s owner % may not schedule pg_cron jobs: %', current_user, SQLERRM
            USING ERRCODE = '42501', HINT = format('As a superuser: GRANT USAGE ON SCHEMA cron TO %I;', current_user);
    END;
    UPDATE pgque.config SET ticker_loop_ms = CASE WHEN v_seconds THEN 1000 ELSE 60000 END,
                            scheduler = 'pg_cron', scheduler_job_ids = v_ids;
END
$$;

-- Removes the jobs start() scheduled. Safe to call when pg_cron is absent or nothing is
-- scheduled.
CREATE OR REPLACE FUNCTION pgque.stop()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    UPDATE pgque.config SET ticker_loop_ms = 1000;
    UPDATE pgque.config SET scheduler = NULL, scheduler_job_ids = NULL WHERE scheduler = 'pg_cron';
    IF pgque.cron_version() IS NULL THEN
        RETURN;
    END IF;
    PERFORM cron.unschedule(c.jobid)
       FROM cron.job c
      WHERE c.jobname IN (SELECT jobname FROM pgque.cron_jobs()) AND c.username = current_user;
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

-- Internal: refuses unless pg_timetable's schema and API are installed here and trustworthy: the
-- jobs run whatever timetable.add_job() and delete_job() do with the engine owner's rights, so
-- the schema must be owned by a superuser or the engine's owner, and those functions by the
-- schema's owner. i_api names the functions the caller needs, for the message.
CREATE OR REPLACE FUNCTION pgque.timetable_check(i_caller text, i_api text)
RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_timetable_owner oid;
BEGIN
    SELECT nspowner INTO v_timetable_owner FROM pg_namespace WHERE nspname = 'timetable';
    IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM pg_proc WHERE pronamespace = to_regnamespace('timetable')
                                   AND proname = 'add_job')
                 OR NOT EXISTS (SELECT 1 FROM pg_proc WHERE pronamespace = to_regnamespace('timetable')
                                   AND proname = 'delete_job') THEN
        RAISE EXCEPTION 'pg_timetable schema/API is not installed. pgque.%() schedules the ticker with pg_timetable; install pg_timetable in this database first, or use pgque.start() (pg_cron), or run pgque.ticker() and pgque.maint() manually.',
            i_caller USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000';
    END IF;
    IF NOT (SELECT rolsuper FROM pg_roles WHERE oid = v_timetable_owner)
       AND v_timetable_owner <> (SELECT nspowner FROM pg_namespace WHERE nspname = 'pgque') THEN
        RAISE EXCEPTION 'untrusted pg_timetable schema owner: %', v_timetable_owner::regrole USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:42501',
            DETAIL = 'Schema timetable must be owned by a superuser or by the owner of schema pgque.';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_proc WHERE pronamespace = to_regnamespace('timetable') AND proname IN ('add_job', 'delete_job')
                  AND proowner <> v_timetable_owner) THEN
        RAISE EXCEPTION 'untrusted pg_timetable API owner: % must be owned by timetable schema owner', i_api
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:42501';
    END IF;
END
$$;

-- Schedules the ticker loop, retries and maintenance with pg_timetable instead of pg_cron.
-- Idempotent: a second call replaces the jobs. i_tick_period_ms, when given, is set as with
-- set_tick_period_ms(). The jobs run as the engine's owner.
CREATE OR REPLACE FUNCTION pgque.start_timetable(i_tick_period_ms integer DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_ids bigint[] := '{}';
    v_id bigint;
    j record;
BEGIN
    IF i_tick_period_ms IS NOT NULL
       AND (i_tick_period_ms < 1 OR i_tick_period_ms > 1000 OR 1000 % i_tick_period_ms <> 0) THEN
        RAISE EXCEPTION 'ticks_per_second must be an exact divisor of 1000 between 1 and 1000 (got %)', i_tick_period_ms
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', HINT = 'The tick period in ms, for example 1000, 500, 250, 200, 100, 50 or 10.';
    END IF;
    PERFORM pgque.timetable_check('start_timetable', 'add_job/delete_job');
    FOR j IN SELECT * FROM pgque.timetable_schedule_sql() LOOP
        EXECUTE j.unschedule_sql;
        EXECUTE j.schedule_sql INTO v_id;
        v_ids := v_ids || v_id;
    END LOOP;
    UPDATE pgque.config SET tick_period_ms = coalesce(i_tick_period_ms, tick_period_ms), ticker_loop_ms = 1000,
                            scheduler = 'pg_timetable', scheduler_job_ids = v_ids;
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

-- Internal: stop_timetable() without its checks; nothing when pg_timetable is absent (uninstall).
CREATE OR REPLACE FUNCTION pgque.timetable_stop_jobs()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    j record;
BEGIN
    UPDATE pgque.config SET scheduler = NULL, scheduler_job_ids = NULL, ticker_loop_ms = 1000
     WHERE scheduler = 'pg_timetable';
    IF to_regnamespace('timetable') IS NULL
       OR NOT EXISTS (SELECT 1 FROM pg_proc WHERE pronamespace = to_regnamespace('timetable') AND proname = 'delete_job') THEN
        RETURN;
    END IF;
    FOR j IN SELECT * FROM pgque.timetable_schedule_sql() LOOP
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

-- Consumer monitoring: get_consumer_info plus what is waiting in retries and dead letters. Its
-- pending_events leave out the ids a forced tick drew (get_consumer_info's, PgQ's, count them).
CREATE OR REPLACE FUNCTION pgque.consumer_stats()
RETURNS TABLE (queue_name text, consumer_name text, lag interval, last_seen interval, last_tick bigint,
               current_batch bigint, pending_events bigint, retry_events bigint, dead_letters bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT i.queue_name, i.consumer_name, i.lag, i.last_seen, i.last_tick, i.current_batch,
           greatest(i.pending_events
                    - coalesce((SELECT lt.tick_forced_ids - ct.tick_forced_ids
                                  FROM pgque.queue q
                                  JOIN pgque.tick ct ON ct.tick_queue = q.queue_id AND ct.tick_id = i.last_tick
                                  CROSS JOIN LATERAL (SELECT t.tick_forced_ids FROM pgque.tick t WHERE t.tick_queue = q.queue_id
                                                       ORDER BY t.tick_id DESC LIMIT 1) lt
                                 WHERE q.queue_name = i.queue_name), 0), 0),
           (SELECT count(*) FROM pgque.retry_queue r
              JOIN pgque.subscription s ON s.sub_id = r.ev_owner
              JOIN pgque.queue q ON q.queue_id = s.sub_queue
              JOIN pgque.consumer c ON c.co_id = s.sub_consumer
             WHERE q.queue_name = i.queue_name AND c.co_name = i.consumer_name),
           (SELECT count(*) FROM pgque.dead_letter d
              JOIN pgque.queue q ON q.queue_id = d.dl_queue_id
              JOIN pgque.consumer c ON c.co_id = d.dl_consumer_id
             WHERE q.queue_name = i.queue_name AND c.co_name = i.consumer_name)
      FROM pgque.get_consumer_info() i
$$;

-- A health roll-up, one row per component. First PgQue's rows, which scripts parse by component
-- name: postgresql, pgque, scheduler, ticker, maintenance, pg_cron and pg_timetable (when absent),
-- queues and consumers. Then this engine's own: each pg_cron job, 'ticking' (are the queues
-- ticked here fresh), every queue and every consumer. A queue is 'stale' when its last tick is
-- older than twice its idle period (an idle queue is ticked at least once per idle period).
CREATE OR REPLACE FUNCTION pgque.status()
RETURNS TABLE (component text, status text, detail text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_cron text := pgque.cron_version();
    v_timetable boolean := to_regnamespace('timetable') IS NOT NULL;
    v_config pgque.config;
    v_scheduler text;
    v_jobs int := 0;
    j record;
BEGIN
    SELECT * INTO v_config FROM pgque.config;
    IF v_cron IS NOT NULL THEN
        SELECT count(*) INTO v_jobs FROM cron.job c
         WHERE c.jobname = 'pgque_ticker' AND c.username = current_user AND c.active;
    END IF;
    v_scheduler := CASE WHEN v_jobs > 0 THEN 'pg_cron'
                        WHEN v_config.scheduler = 'pg_timetable' AND v_timetable THEN 'pg_timetable'
                        ELSE 'manual' END;

    component := 'postgresql'; status := 'info'; detail := pg_catalog.version(); RETURN NEXT;
    component := 'pgque'; status := 'info'; detail := pgque.version(); RETURN NEXT;
    component := 'scheduler';
    status := v_scheduler;
    detail := CASE v_scheduler
                  WHEN 'manual' THEN format('no scheduler jobs; call pgque.ticker() and pgque.maint() from outside (a connector''s ticker duty does), tick_period_ms=%s',
                                            v_config.tick_period_ms)
                  ELSE format('job ids %s, tick_period_ms=%s', coalesce(array_to_string(v_config.scheduler_job_ids, ','), 'unknown'),
                              v_config.tick_period_ms) END;
    RETURN NEXT;
    component := 'ticker';
    status := CASE WHEN v_scheduler = 'manual' THEN 'stopped' ELSE 'scheduled' END;
    detail := CASE WHEN v_scheduler = 'manual' THEN 'no pgque_ticker job; ticks come from outside, if at all'
                   ELSE format('pgque_ticker via %s: CALL pgque.ticker_loop() every second, a tick check every %s ms',
                               v_scheduler, v_config.tick_period_ms) END;
    RETURN NEXT;
    component := 'maintenance';
    status := CASE WHEN v_scheduler = 'manual' THEN 'stopped' ELSE 'scheduled' END;
    detail := CASE WHEN v_scheduler = 'manual' THEN 'no maintenance jobs; call pgque.maint(), pgque.maint_retry_events() and pgque.maint_rotate_tables_step2() from outside'
                   ELSE format('pgque_retry, pgque_maint and pgque_rotate_step2 via %s', v_scheduler) END;
    RETURN NEXT;
    IF v_cron IS NULL THEN
        component := 'pg_cron'; status := 'unavailable';
        detail := 'pg_cron is not installed in this database; install it and call pgque.start(), or tick from outside';
        RETURN NEXT;
    END IF;
    IF NOT v_timetable THEN
        component := 'pg_timetable'; status := 'unavailable';
        detail := 'schema timetable is not installed; install pg_timetable and call pgque.start_timetable(), or tick from outside';
        RETURN NEXT;
    END IF;
    component := 'queues'; status := 'info'; detail := (SELECT count(*) FROM pgque.queue)::text; RETURN NEXT;
    component := 'consumers'; status := 'info'; detail := (SELECT count(*) FROM pgque.subscription)::text; RETURN NEXT;

    IF v_cron IS NOT NULL THEN
        FOR j IN SELECT cj.jobname, c.schedule, c.command, c.active,
                        (SELECT d.status || ' at ' || d.start_time::text || coalesce(': ' || nullif(d.return_message, ''), '')
                           FROM cron.job_run_details d WHERE d.jobid = c.jobid
                          ORDER BY d.runid DESC LIMIT 1) AS last_run
                   FROM pgque.cron_jobs() cj
                   LEFT JOIN cron.job c ON c.jobname = cj.jobname AND c.username = current_user
                  ORDER BY cj.jobname LOOP
            component := 'job ' || j.jobname;
            status := CASE WHEN j.schedule IS NULL THEN 'not scheduled' WHEN j.active THEN 'active' ELSE 'inactive' END;
            detail := CASE WHEN j.schedule IS NULL THEN NULL
                           ELSE format('%s: %s; last run: %s', j.schedule, j.command, coalesce(j.last_run, 'none yet')) END;
            RETURN NEXT;
        END LOOP;
    END IF;

    RETURN QUERY
    WITH queues AS (
        SELECT i.*, q.queue_ticker_idle_period AS idle,
               (SELECT count(*) FROM pgque.subscription s WHERE s.sub_queue = q.queue_id) AS consumers,
               tb.unticked_events,
               CASE WHEN i.queue_ticker_paused THEN 'paused'
                    WHEN i.queue_external_ticker THEN 'external ticker'
                    WHEN i.ticker_lag IS NULL OR i.ticker_lag > 2 * q.queue_ticker_idle_period THEN 'stale'
                    ELSE 'ok' END AS state
          FROM pgque.get_queue_info() i JOIN pgque.queue q ON q.queue_name = i.queue_name
          CROSS JOIN LATERAL pgque.tick_backlog(q.queue_id) tb
    )
    SELECT 'ticking',
           CASE WHEN NOT EXISTS (SELECT 1 FROM queues WHERE state IN ('ok', 'stale')) THEN 'no queues'
                WHEN EXISTS (SELECT 1 FROM queues WHERE state = 'stale') THEN 'stale'
                ELSE 'ok' END,
           (SELECT format('%s queue(s) ticked here; oldest last tick %s ago (queue %s)', count(*),
                          date_trunc('second', max(ticker_lag)),
                          (array_agg(queue_name ORDER BY ticker_lag DESC NULLS FIRST))[1])
              FROM queues WHERE state IN ('ok', 'stale'))
    UNION ALL
    (SELECT 'queue ' || queue_name, state,
            format('last tick %s ago, %s new event(s), %s consumer(s)',
                   date_trunc('second', ticker_lag), unticked_events, consumers)
       FROM queues ORDER BY queue_name);

    RETURN QUERY
    SELECT 'consumer ' || s.queue_name || '/' || s.consumer_name,
           CASE WHEN s.dead_letters > 0 THEN 'dead letters'
                WHEN s.lag > 2 * q.queue_ticker_idle_period + q.queue_ticker_max_lag AND s.pending_events > 0 THEN 'behind'
                ELSE 'ok' END,
           format('lag %s, last seen %s ago, %s pending event(s), %s retry event(s), %s dead letter(s)',
                  date_trunc('second', s.lag), date_trunc('second', s.last_seen), s.pending_events,
                  s.retry_events, s.dead_letters)
      FROM pgque.consumer_stats() s JOIN pgque.queue q ON q.queue_name = s.queue_name
     ORDER BY s.queue_name, s.consumer_name;
END
$$;

-- PgQ's cursor read of a batch: opens cursor i_cursor_name on the batch's events (optionally
-- filtered by i_extra_where, an SQL condition on the event columns), returns the first
-- i_quick_limit rows and leaves the cursor open for the caller's FETCH and CLOSE (also when those
-- rows were all of them). Admin only and with the caller's rights: the condition is SQL text, so it must
-- never run with the owner's rights.
CREATE OR REPLACE FUNCTION pgque.get_batch_cursor(i_batch_id bigint, i_cursor_name text, i_quick_limit int4,
    i_extra_where text,
    OUT ev_id bigint, OUT ev_time timestamptz, OUT ev_txid bigint, OUT ev_retry int4, OUT ev_type text,
    OUT ev_data text, OUT ev_extra1 text, OUT ev_extra2 text, OUT ev_extra3 text, OUT ev_extra4 text)
RETURNS SETOF record
LANGUAGE plpgsql SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_cursor refcursor := i_cursor_name;
    v_rows int := 0;
BEGIN
    IF i_cursor_name IS NULL OR i_quick_limit IS NULL OR i_quick_limit < 0 THEN
        RAISE EXCEPTION 'cursor name and a quick limit >= 0 are required' USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pgque.subscription WHERE sub_batch = i_batch_id) THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    OPEN v_cursor FOR EXECUTE
        'SELECT * FROM pgque.get_batch_events($1)'
        || CASE WHEN nullif(btrim(i_extra_where), '') IS NULL THEN '' ELSE ' WHERE ' || i_extra_where END
        || ' ORDER BY 1'
        USING i_batch_id;
    WHILE v_rows < i_quick_limit LOOP
        FETCH v_cursor INTO ev_id, ev_time, ev_txid, ev_retry, ev_type, ev_data,
                            ev_extra1, ev_extra2, ev_extra3, ev_extra4;
        EXIT WHEN NOT FOUND;
        v_rows := v_rows + 1;
        RETURN NEXT;
    END LOOP;
    -- As in PgQ the cursor stays open, also when these rows were the whole batch: the caller
    -- FETCHes the rest (or nothing) and CLOSEs it.
END
$$;

CREATE OR REPLACE FUNCTION pgque.get_batch_cursor(i_batch_id bigint, i_cursor_name text, i_quick_limit int4,
    OUT ev_id bigint, OUT ev_time timestamptz, OUT ev_txid bigint, OUT ev_retry int4, OUT ev_type text,
    OUT ev_data text, OUT ev_extra1 text, OUT ev_extra2 text, OUT ev_extra3 text, OUT ev_extra4 text)
RETURNS SETOF record
LANGUAGE sql SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT * FROM pgque.get_batch_cursor(i_batch_id, i_cursor_name, i_quick_limit, NULL)
$$;

-- Internal: the objects outside schema pgque that depend on something in it (a column of type
-- pgque.message in a user's table, a view over an engine table, a function taking one of its
-- types): DROP SCHEMA ... CASCADE would drop them silently.
CREATE OR REPLACE FUNCTION pgque.uninstall_dependents()
RETURNS TABLE (dependent text)
LANGUAGE sql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    WITH engine AS (
        SELECT 'pg_class'::regclass::oid AS classid, c.oid AS objid FROM pg_class c WHERE c.relnamespace = 'pgque'::regnamespace
        UNION ALL
        SELECT 'pg_type'::regclass::oid, t.oid FROM pg_type t WHERE t.typnamespace = 'pgque'::regnamespace
        UNION ALL
        SELECT 'pg_proc'::regclass::oid, p.oid FROM pg_proc p WHERE p.pronamespace = 'pgque'::regnamespace
    ), dep AS (
        SELECT DISTINCT d.classid, d.objid, d.objsubid
          FROM pg_depend d JOIN engine e ON e.classid = d.refclassid AND e.objid = d.refobjid
         WHERE d.deptype IN ('n', 'a')
    ), placed AS (
        -- The schema each dependent object lives in (a rule, trigger, default or constraint: its table's).
        SELECT dep.*,
               CASE dep.classid
                   WHEN 'pg_class'::regclass THEN (SELECT c.relnamespace FROM pg_class c WHERE c.oid = dep.objid)
                   WHEN 'pg_type'::regclass THEN (SELECT t.typnamespace FROM pg_type t WHERE t.oid = dep.objid)
                   WHEN 'pg_proc'::regclass THEN (SELECT p.pronamespace FROM pg_proc p WHERE p.oid = dep.objid)
                   WHEN 'pg_rewrite'::regclass THEN (SELECT c.relnamespace FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class WHERE r.oid = dep.objid)
                   WHEN 'pg_trigger'::regclass THEN (SELECT c.relnamespace FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid WHERE g.oid = dep.objid)
                   WHEN 'pg_attrdef'::regclass THEN (SELECT c.relnamespace FROM pg_attrdef a JOIN pg_class c ON c.oid = a.adrelid WHERE a.oid = dep.objid)
                   WHEN 'pg_constraint'::regclass THEN (SELECT coalesce(nullif(k.connamespace, 0), c.relnamespace)
                                                          FROM pg_constraint k LEFT JOIN pg_class c ON c.oid = k.conrelid WHERE k.oid = dep.objid)
                   WHEN 'pg_policy'::regclass THEN (SELECT c.relnamespace FROM pg_policy y JOIN pg_class c ON c.oid = y.polrelid WHERE y.oid = dep.objid)
               END AS nsp
          FROM dep
    )
    SELECT pg_describe_object(p.classid, p.objid, p.objsubid)
      FROM placed p
     WHERE p.nsp IS DISTINCT FROM 'pgque'::regnamespace
     ORDER BY 1
$$;

-- Internal: the queues that still hold events some consumer has not acked (events in the queue's
-- tables that its cursor's tick does not cover, ticked or not), retry events or dead letters,
-- with what they hold.
CREATE OR REPLACE FUNCTION pgque.uninstall_unconsumed()
RETURNS TABLE (queue_name text, unconsumed text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    s record;
    v_count bigint;
    v_parts text[];
BEGIN
    FOR q IN SELECT * FROM pgque.queue ORDER BY pgque.queue.queue_name LOOP
        v_parts := '{}';
        FOR s IN SELECT c.co_name, sub.sub_id, t.tick_snapshot
                   FROM pgque.subscription sub
                   JOIN pgque.consumer c ON c.co_id = sub.sub_consumer
                   JOIN pgque.tick t ON t.tick_queue = sub.sub_queue AND t.tick_id = sub.sub_last_tick
                  WHERE sub.sub_queue = q.queue_id
                  ORDER BY c.co_name LOOP
            EXECUTE format('SELECT count(*) FROM %s e WHERE NOT pg_visible_in_snapshot(e.ev_txid, $1)
                              AND (e.ev_owner IS NULL OR e.ev_owner = $2)', pgque.event_table_name(q.queue_id, NULL))
               INTO v_count USING s.tick_snapshot, s.sub_id;
            IF v_count > 0 THEN
                v_parts := v_parts || format('%s event(s) not yet acked by consumer %s', v_count, s.co_name);
            END IF;
        END LOOP;
        SELECT count(*) INTO v_count FROM pgque.retry_queue r WHERE r.ev_queue = q.queue_id;
        IF v_count > 0 THEN
            v_parts := v_parts || format('%s retry event(s)', v_count);
        END IF;
        SELECT count(*) INTO v_count FROM pgque.dead_letter d WHERE d.dl_queue_id = q.queue_id;
        IF v_count > 0 THEN
            v_parts := v_parts || format('%s dead letter(s)', v_count);
        END IF;
        IF cardinality(v_parts) > 0 THEN
            queue_name := q.queue_name;
            unconsumed := array_to_string(v_parts, ', ');
            RETURN NEXT;
        END IF;
    END LOOP;
END
$$;

-- Removes the engine: unschedules its jobs and drops schema pgque with every queue and event in
-- it. The roles stay (they are cluster-wide and may be granted elsewhere). Only the schema's
-- owner (the installer) may call it; it runs with the caller's rights. Refuses, listing them,
-- while objects outside the schema depend on it (DROP ... CASCADE would take them along) or
-- queues still hold events that consumers have not acked, or dead letters; i_force removes the
-- engine anyway (and those dependent objects with it).
CREATE OR REPLACE FUNCTION pgque.uninstall(i_force boolean)
RETURNS void
LANGUAGE plpgsql SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_owner regrole;
    v_dependents text;
    v_unconsumed text;
BEGIN
    SELECT nspowner::regrole INTO v_owner FROM pg_namespace WHERE nspname = 'pgque';
    IF NOT pg_has_role(current_user, v_owner, 'USAGE')
       AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied: only the owner of schema pgque (%) may uninstall the engine', v_owner
            USING ERRCODE = '42501';
    END IF;
    IF NOT coalesce(i_force, false) THEN
        SELECT string_agg(dependent, '; ') INTO v_dependents FROM pgque.uninstall_dependents();
        IF v_dependents IS NOT NULL THEN
            RAISE EXCEPTION 'cannot uninstall pgque: objects outside schema pgque depend on it: %', v_dependents
                USING ERRCODE = '2BP01',
                      HINT = 'Drop or change them first, or call pgque.uninstall(true) to drop them with the engine.';
        END IF;
        SELECT string_agg(format('queue %s: %s', queue_name, unconsumed), '; ') INTO v_unconsumed
          FROM pgque.uninstall_unconsumed();
        IF v_unconsumed IS NOT NULL THEN
            RAISE EXCEPTION 'cannot uninstall pgque: queues still hold unconsumed events: %', v_unconsumed
                USING ERRCODE = '55006',
                      HINT = 'Let the consumers catch up (or unsubscribe them), replay or purge the dead letters, or call pgque.uninstall(true) to drop everything.';
        END IF;
    END IF;
    PERFORM pgque.stop();
    PERFORM pgque.timetable_stop_jobs();
    DROP SCHEMA pgque CASCADE;
END
$$;

-- PgQue's call: refuses as uninstall(false) does, which on a clean install means it removes it.
CREATE OR REPLACE FUNCTION pgque.uninstall()
RETURNS void
LANGUAGE plpgsql SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.uninstall(false);
END
$$;

--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Running the engine from inside the database: pg_cron jobs for the ticker and maintenance,
-- the sub-second ticker loop, a health roll-up, and removal. Plus the small PgQ helpers that
-- PgQ/PgQue scripts call. Admin only unless noted in 90_grants.sql.

-- How long one run of ticker_loop() keeps ticking, in ms. start() sets it to the period of the
-- ticker job (1 s where pg_cron can schedule seconds, 1 min where it cannot); stop() sets it
-- back, so a running loop ends within a second instead of finishing its minute.
ALTER TABLE pgque.config ADD COLUMN IF NOT EXISTS ticker_loop_ms int NOT NULL DEFAULT 1000
    CHECK (ticker_loop_ms BETWEEN 1000 AND 60000);

-- PgQ helper: the event table a producer inserting directly must write to now.
CREATE OR REPLACE FUNCTION pgque.current_event_table(x_queue_name text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_name = x_queue_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'Event queue not found' USING ERRCODE = 'PQ001', DETAIL = format('queue: %s', x_queue_name);
    END IF;
    IF q.queue_disable_insert THEN
        RAISE EXCEPTION 'Writing to queue disabled' USING ERRCODE = '55000',
            DETAIL = format('Queue %s has disable_insert = true.', x_queue_name);
    END IF;
    RETURN pgque.active_event_table(q.queue_id);
END
$$;

-- PgQ helper: a possibly schema-qualified name quoted for SQL; the first dot separates the
-- schema, which defaults to public.
CREATE OR REPLACE FUNCTION pgque.quote_fqname(i_name text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET search_path = pgque, pg_catalog AS $$
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
            USING ERRCODE = '22023', HINT = 'For example 1000, 500, 250, 200, 100, 50 or 10.';
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
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog AS $$
    VALUES ('pgque_ticker',       'CALL pgque.ticker_loop()',                      '1 seconds',  '* * * * *'),
           ('pgque_retry',        'SELECT pgque.maint_retry_events()',             '30 seconds', '* * * * *'),
           ('pgque_maint',        'SELECT pgque.maint()',                          '30 seconds', '* * * * *'),
           ('pgque_rotate_step2', 'SELECT pgque.maint_rotate_tables_step2()',      '10 seconds', '* * * * *')
$$;

-- Internal: the installed pg_cron version, or NULL when pg_cron is not installed in this database.
CREATE OR REPLACE FUNCTION pgque.cron_version()
RETURNS text
LANGUAGE sql STABLE SET search_path = pgque, pg_catalog AS $$
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
    j record;
BEGIN
    IF v_version IS NULL THEN
        RAISE EXCEPTION 'pg_cron extension is not installed. pgque.start() schedules the ticker with pg_cron.'
            USING ERRCODE = '55000',
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
            PERFORM cron.schedule(j.jobname, CASE WHEN v_seconds THEN j.every_seconds ELSE j.every_minute END, j.command);
        END LOOP;
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'pgque.start(): the engine''s owner % may not schedule pg_cron jobs: %', current_user, SQLERRM
            USING ERRCODE = '42501', HINT = format('As a superuser: GRANT USAGE ON SCHEMA cron TO %I;', current_user);
    END;
    UPDATE pgque.config SET ticker_loop_ms = CASE WHEN v_seconds THEN 1000 ELSE 60000 END;
END
$$;

-- Removes the jobs start() scheduled. Safe to call when pg_cron is absent or nothing is
-- scheduled.
CREATE OR REPLACE FUNCTION pgque.stop()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    UPDATE pgque.config SET ticker_loop_ms = 1000;
    IF pgque.cron_version() IS NULL THEN
        RETURN;
    END IF;
    PERFORM cron.unschedule(c.jobid)
       FROM cron.job c
      WHERE c.jobname IN (SELECT jobname FROM pgque.cron_jobs()) AND c.username = current_user;
END
$$;

-- Internal: a dotted version (1.4-1, 1.6.2) compared with a minimum.
CREATE OR REPLACE FUNCTION pgque.version_at_least(i_version text, i_minimum text)
RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog AS $$
    SELECT string_to_array(substring(i_version FROM '^[0-9]+(?:\.[0-9]+)*'), '.')::int[]
           >= string_to_array(i_minimum, '.')::int[]
$$;

-- Consumer monitoring: get_consumer_info plus what is waiting in retries and dead letters.
CREATE OR REPLACE FUNCTION pgque.consumer_stats()
RETURNS TABLE (queue_name text, consumer_name text, lag interval, last_seen interval, last_tick bigint,
               current_batch bigint, pending_events bigint, retry_events bigint, dead_letters bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT i.queue_name, i.consumer_name, i.lag, i.last_seen, i.last_tick, i.current_batch, i.pending_events,
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

-- A health roll-up, one row per component: the engine, the scheduler and its pg_cron jobs, the
-- ticker as a whole, then every queue and every consumer. A queue is 'stale' when its last tick
-- is older than twice its idle period (an idle queue is ticked at least once per idle period).
CREATE OR REPLACE FUNCTION pgque.status()
RETURNS TABLE (component text, status text, detail text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_cron text := pgque.cron_version();
    v_period int;
    v_jobs int := 0;
    j record;
BEGIN
    component := 'engine';
    status := 'ok';
    detail := format('pgque-kafka-connect engine %s', pgque.version());
    RETURN NEXT;

    SELECT tick_period_ms INTO v_period FROM pgque.config;
    IF v_cron IS NOT NULL THEN
        SELECT count(*) INTO v_jobs FROM cron.job c
         WHERE c.jobname = 'pgque_ticker' AND c.username = current_user AND c.active;
    END IF;
    component := 'scheduler';
    IF v_jobs > 0 THEN
        status := 'pg_cron';
        detail := format('pg_cron %s runs the ticker loop (a tick check every %s ms), retries and maintenance',
                         v_cron, v_period);
    ELSE
        status := 'none';
        detail := CASE WHEN v_cron IS NULL
                       THEN 'pg_cron is not installed in this database; ticks come from outside (a connector''s ticker duty, another scheduler)'
                       ELSE 'pg_cron is installed but no pgque job is scheduled; call pgque.start(), or tick from outside' END;
    END IF;
    RETURN NEXT;

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
               CASE WHEN i.queue_ticker_paused THEN 'paused'
                    WHEN i.queue_external_ticker THEN 'external ticker'
                    WHEN i.ticker_lag IS NULL OR i.ticker_lag > 2 * q.queue_ticker_idle_period THEN 'stale'
                    ELSE 'ok' END AS state
          FROM pgque.get_queue_info() i JOIN pgque.queue q ON q.queue_name = i.queue_name
    )
    SELECT 'ticker',
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
                   date_trunc('second', ticker_lag), ev_new, consumers)
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
-- i_quick_limit rows and leaves the cursor open for FETCH when there may be more (closed
-- otherwise). Admin only and with the caller's rights: the condition is SQL text, so it must
-- never run with the owner's rights.
CREATE OR REPLACE FUNCTION pgque.get_batch_cursor(i_batch_id bigint, i_cursor_name text, i_quick_limit int4,
    i_extra_where text,
    OUT ev_id bigint, OUT ev_time timestamptz, OUT ev_txid bigint, OUT ev_retry int4, OUT ev_type text,
    OUT ev_data text, OUT ev_extra1 text, OUT ev_extra2 text, OUT ev_extra3 text, OUT ev_extra4 text)
RETURNS SETOF record
LANGUAGE plpgsql SET search_path = pgque, pg_catalog AS $$
DECLARE
    v_cursor refcursor := i_cursor_name;
    v_rows int := 0;
BEGIN
    IF i_cursor_name IS NULL OR i_quick_limit IS NULL OR i_quick_limit < 0 THEN
        RAISE EXCEPTION 'cursor name and a quick limit >= 0 are required' USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pgque.subscription WHERE sub_batch = i_batch_id) THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'PQ003';
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
    IF v_rows < i_quick_limit THEN
        CLOSE v_cursor;
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.get_batch_cursor(i_batch_id bigint, i_cursor_name text, i_quick_limit int4,
    OUT ev_id bigint, OUT ev_time timestamptz, OUT ev_txid bigint, OUT ev_retry int4, OUT ev_type text,
    OUT ev_data text, OUT ev_extra1 text, OUT ev_extra2 text, OUT ev_extra3 text, OUT ev_extra4 text)
RETURNS SETOF record
LANGUAGE sql SET search_path = pgque, pg_catalog AS $$
    SELECT * FROM pgque.get_batch_cursor(i_batch_id, i_cursor_name, i_quick_limit, NULL)
$$;

-- Removes the engine: unschedules its pg_cron jobs and drops schema pgque with every queue and
-- event in it. The roles stay (they are cluster-wide and may be granted elsewhere). Only the
-- schema's owner (the installer) may call it; it runs with the caller's rights.
CREATE OR REPLACE FUNCTION pgque.uninstall()
RETURNS void
LANGUAGE plpgsql SET search_path = pgque, pg_catalog AS $$
DECLARE
    v_owner regrole;
BEGIN
    SELECT nspowner::regrole INTO v_owner FROM pg_namespace WHERE nspname = 'pgque';
    IF NOT pg_has_role(current_user, v_owner, 'USAGE')
       AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied: only the owner of schema pgque (%) may uninstall the engine', v_owner
            USING ERRCODE = '42501';
    END IF;
    PERFORM pgque.stop();
    DROP SCHEMA pgque CASCADE;
END
$$;

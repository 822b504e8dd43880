--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Health: per-queue, per-consumer and per-slot figures for monitoring (readers), and the roll-up
-- status() that says what runs the engine and what is stale. Admin only unless noted in
-- 90_grants.sql.
--
-- Layer: on top (README.md). Calls any earlier file (82_scheduling.sql for the jobs).

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

-- Queue monitoring, for exporters: PgQue's queue_stats() columns in PgQue's order, then this
-- engine's. depth is the largest backlog of any consumer (the events between the slowest cursor
-- and the last tick, without the ids a forced tick drew), oldest_msg_age the age of the slowest
-- cursor's tick. rotation_pinned: the rotation period has passed and a cursor holds the oldest
-- table (rotation_pinned_by names it), so the queue's tables are not reused until it moves.
CREATE OR REPLACE FUNCTION pgque.queue_stats()
RETURNS TABLE (queue_name text, queue_id int4, depth bigint, oldest_msg_age interval, consumers int4,
               events_per_sec numeric, cur_table int4, rotation_age interval, rotation_period interval,
               ticker_paused boolean, last_tick_time timestamptz, last_tick_id bigint, dlq_count bigint,
               unticked_events bigint, ticker_lag interval, retry_events bigint, rotation_pinned boolean,
               rotation_pinned_by text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
    SELECT q.queue_name, q.queue_id,
           greatest((lt.tick_event_seq - lt.tick_forced_ids) - cur.slowest_seq, 0)::bigint,
           now() - cur.slowest_time,
           cur.consumers::int4,
           CASE WHEN pt.tick_time IS NULL THEN NULL
                WHEN pt.tick_time = lt.tick_time THEN 0::numeric
                ELSE ((lt.tick_event_seq - lt.tick_forced_ids) - (pt.tick_event_seq - pt.tick_forced_ids))::numeric
                     / extract(epoch FROM lt.tick_time - pt.tick_time) END,
           q.queue_cur_table,
           now() - q.queue_switch_time,
           q.queue_rotation_period,
           q.queue_ticker_paused,
           lt.tick_time,
           lt.tick_id,
           (SELECT count(*) FROM pgque.dead_letter d WHERE d.dl_queue_id = q.queue_id),
           tb.unticked_events,
           tb.ticker_lag,
           (SELECT count(*) FROM pgque.retry_queue r WHERE r.ev_queue = q.queue_id),
           h.holder IS NOT NULL,
           h.holder
      FROM pgque.queue q
      CROSS JOIN LATERAL pgque.tick_backlog(q.queue_id) tb
      LEFT JOIN LATERAL (SELECT t.tick_id, t.tick_time, t.tick_event_seq, t.tick_forced_ids FROM pgque.tick t
                          WHERE t.tick_queue = q.queue_id ORDER BY t.tick_id DESC LIMIT 1) lt ON true
      LEFT JOIN LATERAL (SELECT t.tick_time, t.tick_event_seq, t.tick_forced_ids FROM pgque.tick t
                          WHERE t.tick_queue = q.queue_id ORDER BY t.tick_id DESC OFFSET 1 LIMIT 1) pt ON true
      CROSS JOIN LATERAL (SELECT count(*) AS consumers, min(ct.tick_event_seq - ct.tick_forced_ids) AS slowest_seq,
                                 min(ct.tick_time) AS slowest_time
                            FROM pgque.subscription s
                            LEFT JOIN pgque.tick ct ON ct.tick_queue = s.sub_queue AND ct.tick_id = s.sub_last_tick
                           WHERE s.sub_queue = q.queue_id) cur
      CROSS JOIN LATERAL (SELECT CASE WHEN q.queue_switch_step2 IS NOT NULL
                                       AND q.queue_switch_time + q.queue_rotation_period < now()
                                      THEN pgque.queue_rotation_holder(q) END AS holder) h
     ORDER BY q.queue_name;
END
$$;

-- Slot monitoring, for exporters: one row per slot of every partitioned consumer (both sets
-- while a resize drains, as partition_slot_status), with its lease and its cursor. A slot
-- without a live lease is read by nobody and holds back rotation for the whole queue:
-- unleased_for says for how long (since the last holder released it, or its lease ran out, or
-- the slot was created), leased_for how long the holder has had it.
CREATE OR REPLACE FUNCTION pgque.slot_stats()
RETURNS TABLE (queue_name text, consumer_name text, slot int4, n int4, slot_set text, lease_owner text,
               lease_held boolean, lease_epoch bigint, leased_for interval, unleased_for interval,
               lag interval, last_seen interval, last_tick bigint, current_batch bigint, pending_events bigint,
               retry_events bigint, dead_letters bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_now timestamptz := clock_timestamp();
BEGIN
    RETURN QUERY
    SELECT v.queue_name, v.consumer, v.slot, v.n, v.slot_set,
           CASE WHEN l.held THEN ps.lease_owner END,
           l.held,
           v.epoch,
           CASE WHEN l.held THEN v_now - ps.lease_since END,
           CASE WHEN NOT l.held THEN v_now - CASE WHEN ps.queue_id IS NULL THEN pc.resize_started
                                                   WHEN ps.lease_owner IS NOT NULL THEN ps.lease_until
                                                   ELSE ps.lease_since END END,
           v_now - ct.tick_time,
           v_now - s.sub_active,
           s.sub_last_tick,
           s.sub_batch,
           v.backlog_events,
           (SELECT count(*) FROM pgque.retry_queue r WHERE r.ev_owner = s.sub_id),
           (SELECT count(*) FROM pgque.dead_letter d WHERE d.dl_queue_id = q.queue_id AND d.dl_consumer_id = c.co_id)
      FROM pgque.partition_slot_status v
      JOIN pgque.queue q ON q.queue_name = v.queue_name
      JOIN pgque.partition_consumer pc ON pc.queue_id = q.queue_id AND pc.co_name = v.consumer
      LEFT JOIN pgque.partition_slot ps
             ON ps.queue_id = q.queue_id AND ps.co_name = v.consumer AND ps.slot = v.slot AND v.slot_set <> 'new'
      CROSS JOIN LATERAL (SELECT coalesce(ps.lease_owner IS NOT NULL AND ps.lease_until > v_now, false) AS held) l
      LEFT JOIN pgque.consumer c ON c.co_name = pgque.slot_consumer_name(v.consumer, v.slot, v.n)
      LEFT JOIN pgque.subscription s ON s.sub_queue = q.queue_id AND s.sub_consumer = c.co_id
      LEFT JOIN pgque.tick ct ON ct.tick_queue = q.queue_id AND ct.tick_id = s.sub_last_tick
     ORDER BY v.queue_name, v.consumer, v.slot_set DESC, v.slot;
END
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
    -- pg_cron's tables are read only where the engine may call into its schema.
    v_cron_doubt text := CASE WHEN pgque.cron_version() IS NOT NULL
                              THEN pgque.scheduler_schema_doubt('cron', '{}') END;
    v_timetable boolean := to_regnamespace('timetable') IS NOT NULL;
    v_config pgque.config;
    v_scheduler text;
    v_jobs int := 0;
    j record;
BEGIN
    SELECT * INTO v_config FROM pgque.config;
    IF v_cron IS NOT NULL AND v_cron_doubt IS NULL THEN
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
                  ELSE format('ticker_job_id=%s, maint_job_id=%s, job ids %s, tick_period_ms=%s',
                              coalesce(v_config.ticker_job_id::text, 'NULL'), coalesce(v_config.maint_job_id::text, 'NULL'),
                              coalesce(array_to_string(v_config.scheduler_job_ids, ','), 'unknown'),
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
                   ELSE format('pgque_retry_events, pgque_maint and pgque_rotate_step2 via %s', v_scheduler) END;
    RETURN NEXT;
    IF v_cron IS NULL THEN
        component := 'pg_cron'; status := 'unavailable';
        detail := 'pg_cron is not installed in this database: call pgque.ticker() and pgque.maint() (with pgque.maint_retry_events() and pgque.maint_rotate_tables_step2()) from outside, as a connector''s ticker duty does, or use pgque.start_timetable(); with pg_cron installed, pgque.start()';
        RETURN NEXT;
    END IF;
    IF v_cron_doubt IS NOT NULL THEN
        component := 'pg_cron'; status := 'untrusted';
        detail := format('schema cron is not one the engine calls into (%s): it and everything in it must belong to a superuser or to the owner of schema pgque',
                         v_cron_doubt);
        RETURN NEXT;
    END IF;
    IF NOT v_timetable THEN
        component := 'pg_timetable'; status := 'unavailable';
        detail := 'schema timetable is not installed; install pg_timetable and call pgque.start_timetable(), or tick from outside';
        RETURN NEXT;
    END IF;
    component := 'queues'; status := 'info'; detail := (SELECT count(*) FROM pgque.queue)::text; RETURN NEXT;
    component := 'consumers'; status := 'info'; detail := (SELECT count(*) FROM pgque.subscription)::text; RETURN NEXT;

    IF v_cron IS NOT NULL AND v_cron_doubt IS NULL THEN
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

    -- A rotation that is due but has not happened: rotation skips a round instead of waiting, so
    -- what holds it back shows only here.
    RETURN QUERY
    SELECT 'rotation ' || q.queue_name,
           CASE WHEN b.why = '' THEN 'due' ELSE 'blocked' END,
           CASE WHEN b.why = '' THEN format('due since %s; rotates at the next maint()',
                                            date_trunc('second', q.queue_switch_time + q.queue_rotation_period))
                ELSE format('due since %s; %s', date_trunc('second', q.queue_switch_time + q.queue_rotation_period), b.why) END
      FROM pgque.queue q
     CROSS JOIN LATERAL (SELECT pgque.queue_rotation_blockers(q.queue_id) AS why) b
     WHERE b.why IS NOT NULL
     ORDER BY q.queue_name;

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

-- PgQue's observability functions, for monitoring written against PgQue (readers). They read
-- the same figures as queue_stats() and consumer_stats() above, forced ticks' ids left out.

-- Health checks, one row per check: per queue 'ticker_running' (critical when the queue has no
-- tick or its last one is older than twice its idle period: its ticker has stopped, as status()
-- calls it stale), per subscription with a cursor 'consumer_lag:<consumer>' (warning past half the
-- rotation period, critical past the whole: its cursor holds the oldest table), per queue
-- 'rotation_health' (warning while a switch waits for step 2, or when the rotation is more than a
-- period overdue, saying which consumer holds it) and 'dlq_health' (warning over 1000 dead
-- letters); then, as queue 'system', 'pg_cron_ticker' and 'pg_cron_maint': 'ok' with the job id,
-- or 'manual' when no scheduler job runs them (ticks then come from outside, a connector's
-- ticker duty say: 'ticker_running' says whether they do).
CREATE OR REPLACE FUNCTION pgque.queue_health()
RETURNS TABLE (queue_name text, check_name text, status text, detail text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
    SELECT q.queue_name, 'ticker_running'::text,
           CASE WHEN lt.tick_time IS NULL OR now() - lt.tick_time > 2 * q.queue_ticker_idle_period THEN 'critical'
                ELSE 'ok' END,
           'last tick: ' || coalesce(lt.tick_time::text, 'never')
             || coalesce(format(' (%s ago)', date_trunc('second', now() - lt.tick_time)), '')
      FROM pgque.queue q
      LEFT JOIN LATERAL (SELECT t.tick_time FROM pgque.tick t WHERE t.tick_queue = q.queue_id
                          ORDER BY t.tick_id DESC LIMIT 1) lt ON true
     WHERE NOT q.queue_ticker_paused
     ORDER BY q.queue_name;

    RETURN QUERY
    SELECT i.queue_name, 'consumer_lag:' || i.consumer_name,
           CASE WHEN i.lag > q.queue_rotation_period THEN 'critical'
                WHEN i.lag > q.queue_rotation_period / 2 THEN 'warning'
                ELSE 'ok' END,
           format('%s lag: %s, %s pending event(s)', i.consumer_name, date_trunc('second', i.lag), i.pending_events)
      FROM pgque.consumer_stats() i
      JOIN pgque.queue q ON q.queue_name = i.queue_name
     WHERE i.last_tick IS NOT NULL;

    RETURN QUERY
    SELECT q.queue_name, 'rotation_health'::text,
           CASE WHEN q.queue_switch_step2 IS NULL
                  OR q.queue_switch_time + 2 * q.queue_rotation_period < now() THEN 'warning'
                ELSE 'ok' END,
           CASE WHEN q.queue_switch_step2 IS NULL THEN 'mid-rotation (step2 pending)'
                ELSE 'last rotation: ' || q.queue_switch_time::text
                     || coalesce('; held by consumer ' || CASE WHEN q.queue_switch_time + q.queue_rotation_period < now()
                                                                THEN pgque.queue_rotation_holder(q) END, '') END
      FROM pgque.queue q
     ORDER BY q.queue_name;

    RETURN QUERY
    SELECT q.queue_name, 'dlq_health'::text,
           CASE WHEN d.n > 1000 THEN 'warning' ELSE 'ok' END,
           d.n || ' dead letter events'
      FROM pgque.queue q
     CROSS JOIN LATERAL (SELECT count(*) AS n FROM pgque.dead_letter dl WHERE dl.dl_queue_id = q.queue_id) d
     ORDER BY q.queue_name;

    RETURN QUERY
    SELECT 'system'::text, j.check_name,
           CASE WHEN j.job_id IS NULL THEN 'manual' ELSE 'ok' END,
           CASE WHEN j.job_id IS NULL THEN j.what || ' job not scheduled: call it from outside, or pgque.start()'
                ELSE format('job_id=%s (%s)', j.job_id, c.scheduler) END
      FROM pgque.config c
     CROSS JOIN LATERAL (VALUES ('pg_cron_ticker', 'ticker', c.ticker_job_id),
                                ('pg_cron_maint', 'maint', c.maint_job_id)) AS j(check_name, what, job_id);
END
$$;

-- The figures of queue_stats() and consumer_stats() as OpenTelemetry-style gauges, one row per
-- metric and label set: pgque.queue.depth, pgque.queue.oldest_message_age_seconds,
-- pgque.queue.throughput (events per second between the last two ticks),
-- pgque.message.dead_lettered (per queue), pgque.consumer.lag_seconds and
-- pgque.consumer.pending_events.
CREATE OR REPLACE FUNCTION pgque.otel_metrics()
RETURNS TABLE (metric_name text, metric_type text, value numeric, labels jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
    SELECT m.name, 'gauge'::text, m.value, jsonb_build_object('queue', s.queue_name)
      FROM pgque.queue_stats() s
     CROSS JOIN LATERAL (VALUES ('pgque.queue.depth', s.depth::numeric),
                                ('pgque.queue.oldest_message_age_seconds',
                                 coalesce(extract(epoch FROM s.oldest_msg_age), 0)::numeric),
                                ('pgque.message.dead_lettered', s.dlq_count::numeric),
                                ('pgque.queue.throughput', coalesce(s.events_per_sec, 0))) AS m(name, value)
     ORDER BY m.name, s.queue_name;
    RETURN QUERY
    SELECT m.name, 'gauge'::text, m.value, jsonb_build_object('queue', s.queue_name, 'consumer', s.consumer_name)
      FROM pgque.consumer_stats() s
     CROSS JOIN LATERAL (VALUES ('pgque.consumer.lag_seconds', extract(epoch FROM s.lag)::numeric),
                                ('pgque.consumer.pending_events', s.pending_events::numeric)) AS m(name, value)
     ORDER BY m.name, s.queue_name, s.consumer_name;
END
$$;

-- Subscriptions whose cursor has not moved for longer than i_threshold: lag is the age of the
-- tick the consumer last finished, last_active its last call; the most behind first.
CREATE OR REPLACE FUNCTION pgque.stuck_consumers(i_threshold interval DEFAULT '1 hour')
RETURNS TABLE (queue_name text, consumer_name text, lag interval, last_active timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_threshold IS NULL OR NOT isfinite(i_threshold) THEN
        RAISE EXCEPTION 'stuck_consumers: threshold must be a finite interval, got %', i_threshold USING ERRCODE = '22023';
    END IF;
    RETURN QUERY
    SELECT q.queue_name, c.co_name, now() - t.tick_time, s.sub_active
      FROM pgque.subscription s
      JOIN pgque.queue q ON q.queue_id = s.sub_queue
      JOIN pgque.consumer c ON c.co_id = s.sub_consumer
      LEFT JOIN pgque.tick t ON t.tick_queue = s.sub_queue AND t.tick_id = s.sub_last_tick
     WHERE now() - coalesce(t.tick_time, s.sub_active) > i_threshold
     ORDER BY 3 DESC NULLS FIRST, 1, 2;
END
$$;

-- The open batches of a queue: whose, since when (the consumer's last activity), and about how
-- many events of the queue their windows hold.
CREATE OR REPLACE FUNCTION pgque.in_flight(i_queue_name text)
RETURNS TABLE (consumer_name text, batch_id bigint, batch_age interval, estimated_events bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue_name);
BEGIN
    RETURN QUERY
    SELECT c.co_name, s.sub_batch, now() - s.sub_active,
           coalesce(greatest((nt.tick_event_seq - nt.tick_forced_ids) - (lt.tick_event_seq - lt.tick_forced_ids), 0), 0)
      FROM pgque.subscription s
      JOIN pgque.consumer c ON c.co_id = s.sub_consumer
      LEFT JOIN pgque.tick lt ON lt.tick_queue = s.sub_queue AND lt.tick_id = s.sub_last_tick
      LEFT JOIN pgque.tick nt ON nt.tick_queue = s.sub_queue AND nt.tick_id = s.sub_next_tick
     WHERE s.sub_queue = q.queue_id AND s.sub_batch IS NOT NULL
     ORDER BY c.co_name;
END
$$;

-- Internal: checks a period and bucket size of throughput() and error_rate() (positive, finite,
-- at most 10,000 buckets) and returns the bucket size in seconds.
CREATE OR REPLACE FUNCTION pgque.queue_check_buckets(i_period interval, i_bucket_size interval)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_bucket float8 := extract(epoch FROM i_bucket_size);
BEGIN
    IF i_period IS NULL OR NOT isfinite(i_period) OR i_period <= interval '0'
       OR i_bucket_size IS NULL OR NOT isfinite(i_bucket_size) OR v_bucket < 1 THEN
        RAISE EXCEPTION 'period must be a positive interval and bucket size at least 1 second, got % and %',
            i_period, i_bucket_size USING ERRCODE = '22023';
    END IF;
    IF extract(epoch FROM i_period) / v_bucket > 10000 THEN
        RAISE EXCEPTION 'at most 10000 buckets, got % / %', i_period, i_bucket_size USING ERRCODE = '22023',
            HINT = 'Choose a larger bucket size or a shorter period.';
    END IF;
    RETURN v_bucket;
END
$$;

-- Events per bucket over the last i_period, from the tick history (which rotation keeps back to
-- the previous table switch): each tick's new events are counted in the bucket of its time.
-- Buckets are aligned to multiples of i_bucket_size since the epoch; only buckets with ticks.
CREATE OR REPLACE FUNCTION pgque.throughput(i_queue_name text, i_period interval, i_bucket_size interval)
RETURNS TABLE (bucket_start timestamptz, events bigint, events_per_sec numeric)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue_name);
    v_bucket float8 := pgque.queue_check_buckets(i_period, i_bucket_size);
BEGIN
    RETURN QUERY
    SELECT to_timestamp(floor(extract(epoch FROM d.tick_time) / v_bucket) * v_bucket) AS b,
           sum(greatest(d.events, 0))::bigint,
           round(sum(greatest(d.events, 0))::numeric / v_bucket::numeric, 3)
      FROM (SELECT t.tick_time,
                   (t.tick_event_seq - t.tick_forced_ids)
                   - lag(t.tick_event_seq - t.tick_forced_ids) OVER (ORDER BY t.tick_id) AS events
              FROM pgque.tick t
             WHERE t.tick_queue = q.queue_id) d
     WHERE d.events IS NOT NULL AND d.tick_time >= now() - i_period
     GROUP BY 1
     ORDER BY 1;
END
$$;

-- Failures per bucket over the last i_period: retries are the queue's events waiting in the
-- retry queue, by when they are due; dead_letters the queue's dead letters, by when they were
-- dead-lettered. Every bucket of the period, aligned as throughput()'s.
CREATE OR REPLACE FUNCTION pgque.error_rate(i_queue_name text, i_period interval, i_bucket_size interval)
RETURNS TABLE (bucket_start timestamptz, retries bigint, dead_letters bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue_name);
    v_bucket float8 := pgque.queue_check_buckets(i_period, i_bucket_size);
    v_first numeric := floor(extract(epoch FROM now() - i_period) / v_bucket::numeric) * v_bucket::numeric;
    v_last numeric := floor(extract(epoch FROM now()) / v_bucket::numeric) * v_bucket::numeric;
BEGIN
    RETURN QUERY
    SELECT to_timestamp(b.s),
           (SELECT count(*) FROM pgque.retry_queue r
             WHERE r.ev_queue = q.queue_id
               AND r.ev_retry_after >= to_timestamp(b.s) AND r.ev_retry_after < to_timestamp(b.s + v_bucket)),
           (SELECT count(*) FROM pgque.dead_letter d
             WHERE d.dl_queue_id = q.queue_id
               AND d.dl_time >= to_timestamp(b.s) AND d.dl_time < to_timestamp(b.s + v_bucket))
      FROM generate_series(v_first, v_last, v_bucket::numeric) AS b(s)
     ORDER BY 1;
END
$$;

--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Observability: PgQ's information functions. Reader role.
--
-- Layer: on top (README.md). Calls any earlier file.

CREATE OR REPLACE FUNCTION pgque.version()
RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT engine_version FROM pgque.engine_info
$$;

CREATE OR REPLACE FUNCTION pgque.get_queue_info(i_queue_name text)
RETURNS TABLE (queue_name text, queue_ntables int4, queue_cur_table int4, queue_rotation_period interval,
               queue_switch_time timestamptz, queue_external_ticker boolean, queue_ticker_paused boolean,
               queue_ticker_max_count int4, queue_ticker_max_lag interval, queue_ticker_idle_period interval,
               ticker_lag interval, ev_per_sec float8, ev_new bigint, last_tick_id bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT q.queue_name, q.queue_ntables, q.queue_cur_table, q.queue_rotation_period, q.queue_switch_time,
           q.queue_external_ticker, q.queue_ticker_paused, q.queue_ticker_max_count, q.queue_ticker_max_lag,
           q.queue_ticker_idle_period,
           now() - last.tick_time,
           CASE WHEN old.tick_id IS NULL OR last.tick_time = old.tick_time THEN NULL
                ELSE (last.tick_event_seq - old.tick_event_seq)::float8
                     / extract(epoch FROM last.tick_time - old.tick_time)::float8 END,
           greatest(pgque.seq_getval(pgque.event_seq_name(q.queue_id)) - last.tick_event_seq, 0),
           last.tick_id
      FROM pgque.queue q
      LEFT JOIN LATERAL (SELECT * FROM pgque.tick t WHERE t.tick_queue = q.queue_id
                          ORDER BY t.tick_id DESC LIMIT 1) last ON true
      LEFT JOIN LATERAL (SELECT * FROM pgque.tick t WHERE t.tick_queue = q.queue_id
                          ORDER BY t.tick_id DESC OFFSET 20 LIMIT 1) o20 ON true
      LEFT JOIN LATERAL (SELECT * FROM pgque.tick t WHERE t.tick_queue = q.queue_id
                          ORDER BY t.tick_id ASC LIMIT 1) first ON true
      CROSS JOIN LATERAL (SELECT coalesce(o20.tick_id, first.tick_id) AS tick_id,
                                 coalesce(o20.tick_time, first.tick_time) AS tick_time,
                                 coalesce(o20.tick_event_seq, first.tick_event_seq) AS tick_event_seq) old
     WHERE q.queue_name = i_queue_name
        -- Every queue only for those who work with every queue (a writer asks about its own by name).
        OR (i_queue_name IS NULL AND (pg_has_role(session_user, pgque.role_name('reader'), 'MEMBER')
                                      OR pg_has_role(session_user, pgque.role_name('ticker'), 'MEMBER')
                                      OR pg_has_role(session_user, pgque.role_name('admin'), 'MEMBER')))
     ORDER BY q.queue_name
$$;

CREATE OR REPLACE FUNCTION pgque.get_queue_info()
RETURNS TABLE (queue_name text, queue_ntables int4, queue_cur_table int4, queue_rotation_period interval,
               queue_switch_time timestamptz, queue_external_ticker boolean, queue_ticker_paused boolean,
               queue_ticker_max_count int4, queue_ticker_max_lag interval, queue_ticker_idle_period interval,
               ticker_lag interval, ev_per_sec float8, ev_new bigint, last_tick_id bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT * FROM pgque.get_queue_info(NULL::text)
$$;

CREATE OR REPLACE FUNCTION pgque.get_consumer_info(i_queue_name text, i_consumer_name text)
RETURNS TABLE (queue_name text, consumer_name text, lag interval, last_seen interval, last_tick bigint,
               current_batch bigint, next_tick bigint, pending_events bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT q.queue_name, c.co_name, now() - cur.tick_time, now() - s.sub_active, s.sub_last_tick,
           s.sub_batch, s.sub_next_tick,
           greatest(last.tick_event_seq - cur.tick_event_seq, 0)
      FROM pgque.subscription s
      JOIN pgque.queue q ON q.queue_id = s.sub_queue
      JOIN pgque.consumer c ON c.co_id = s.sub_consumer
      LEFT JOIN pgque.tick cur ON cur.tick_queue = s.sub_queue AND cur.tick_id = s.sub_last_tick
      LEFT JOIN LATERAL (SELECT t.tick_event_seq FROM pgque.tick t WHERE t.tick_queue = s.sub_queue
                          ORDER BY t.tick_id DESC LIMIT 1) last ON true
     WHERE (i_queue_name IS NULL OR q.queue_name = i_queue_name)
       AND (i_consumer_name IS NULL OR c.co_name = i_consumer_name)
     ORDER BY q.queue_name, c.co_name
$$;

CREATE OR REPLACE FUNCTION pgque.get_consumer_info(i_queue_name text)
RETURNS TABLE (queue_name text, consumer_name text, lag interval, last_seen interval, last_tick bigint,
               current_batch bigint, next_tick bigint, pending_events bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT * FROM pgque.get_consumer_info(i_queue_name, NULL)
$$;

CREATE OR REPLACE FUNCTION pgque.get_consumer_info()
RETURNS TABLE (queue_name text, consumer_name text, lag interval, last_seen interval, last_tick bigint,
               current_batch bigint, next_tick bigint, pending_events bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT * FROM pgque.get_consumer_info(NULL, NULL)
$$;

CREATE OR REPLACE FUNCTION pgque.get_batch_info(x_batch_id bigint)
RETURNS TABLE (queue_name text, consumer_name text, batch_start timestamptz, batch_end timestamptz,
               prev_tick_id bigint, tick_id bigint, lag interval, seq_start bigint, seq_end bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT q.queue_name, c.co_name, t1.tick_time, t2.tick_time, t1.tick_id, t2.tick_id,
           now() - t2.tick_time, t1.tick_event_seq, t2.tick_event_seq
      FROM pgque.subscription s
      JOIN pgque.queue q ON q.queue_id = s.sub_queue
      JOIN pgque.consumer c ON c.co_id = s.sub_consumer
      JOIN pgque.tick t1 ON t1.tick_queue = s.sub_queue AND t1.tick_id = s.sub_last_tick
      JOIN pgque.tick t2 ON t2.tick_queue = s.sub_queue AND t2.tick_id = s.sub_next_tick
     WHERE s.sub_batch = x_batch_id
$$;

--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Delayed delivery: an event sent with a due time in the future is held in pgque.delayed_events
-- and enters its queue once due, as a new event (a new id, ev_time the time it entered), so it
-- takes its place in its key's order at its due time, not at its send time. Writer role (the
-- movers: ticker role).
--
-- Who moves due events: the ticker, before it decides on a tick of the queue (hook_due_events,
-- declared in 40_ticker.sql), so they wait no longer than ticks do and count toward the tick like
-- events just sent; and maint_deliver_delayed() (maint() calls it), for every queue, paused and
-- external-ticker queues included. Both move under the queue's tickers' lock (tick_lock), so the
-- events of one queue move in due-time order and never twice. A move is part of the mover's
-- transaction: its events belong to the window of the first tick that sees that transaction
-- committed, which is the tick the same transaction writes or a later one, never an earlier one.
--
-- Layer: on top (README.md). Calls 20_queue.sql, 30_insert.sql and 40_ticker.sql.

-- The held events. Keyed by queue name, not id, as PgQue's table is (scripts written for it insert
-- and count rows by de_queue_name). No foreign key: its check would cost one query per held
-- event; a send locks the queue row once instead (delayed_queue), and drop_queue deletes the
-- queue's held events. A row whose queue does not exist (only the owner can write one) is never
-- moved.
CREATE TABLE IF NOT EXISTS pgque.delayed_events (
    de_id         bigserial PRIMARY KEY,
    de_queue_name text NOT NULL,
    de_deliver_at timestamptz NOT NULL,
    de_type       text,
    de_data       text,
    de_extra1     text,
    de_extra2     text,
    de_extra3     text,
    de_extra4     text
);
-- A mover reads the due rows of one queue in due-time order and stops at the first row not due:
-- its cost follows what is due, never what is held.
CALL pg_temp.pgque_ddl_if(to_regclass('pgque.delayed_events_due_idx') IS NULL,
    'CREATE INDEX delayed_events_due_idx ON pgque.delayed_events (de_queue_name, de_deliver_at, de_id)');

-- Internal: how many due events one move takes into a queue at most: a ticker's transaction
-- stays short however many events fall due at once; the rest follow at the next tick.
CREATE OR REPLACE FUNCTION pgque.delayed_move_limit()
RETURNS int
LANGUAGE sql IMMUTABLE AS $$
    SELECT 10000
$$;

-- Internal: the queue that events are about to be held for, locked against drop_queue until the
-- caller's transaction ends (drop_queue deletes the held events it then sees), and refusing as a
-- send would when inserts are disabled.
CREATE OR REPLACE FUNCTION pgque.delayed_queue(i_queue text)
RETURNS pgque.queue
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue);
BEGIN
    PERFORM 1 FROM pgque.queue WHERE queue_id = q.queue_id FOR KEY SHARE;
    IF NOT FOUND THEN
        q := pgque.queue_row(i_queue); -- dropped meanwhile: the usual "queue not found"
    END IF;
    IF q.queue_disable_insert AND current_setting('session_replication_role') <> 'replica' THEN
        RAISE EXCEPTION 'Insert into queue disallowed' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s has disable_insert = true.', q.queue_name);
    END IF;
    RETURN q;
END
$$;

-- Internal: refuses a due time that never comes. PgQue holds such an event for ever, where
-- nothing would ever deliver it or say that it waits.
CREATE OR REPLACE FUNCTION pgque.delayed_check_times(i_deliver_at timestamptz[])
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF 'infinity'::timestamptz = ANY (i_deliver_at) THEN
        RAISE EXCEPTION 'deliver_at must be a finite time, was infinity' USING ERRCODE = '22023',
            HINT = 'An event held until infinity would never be delivered.';
    END IF;
END
$$;

-- Internal: holds events for queue i_q until their due times; returns their scheduled ids,
-- aligned with the input (drawn in input order before the rows are written).
CREATE OR REPLACE FUNCTION pgque.delayed_hold(i_q pgque.queue, i_deliver_at timestamptz[], i_types text[],
    i_payloads text[], i_extra1 text[], i_extra2 text[], i_extra3 text[], i_extra4 text[])
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_ids bigint[];
BEGIN
    IF coalesce(cardinality(i_payloads), 0) = 0 THEN
        RETURN '{}'::bigint[];
    END IF;
    v_ids := ARRAY(SELECT nextval('pgque.delayed_events_de_id_seq'::regclass)
                     FROM generate_series(1, cardinality(i_payloads)) ORDER BY 1);
    INSERT INTO pgque.delayed_events (de_id, de_queue_name, de_deliver_at, de_type, de_data,
                                      de_extra1, de_extra2, de_extra3, de_extra4)
    SELECT u.id, i_q.queue_name, u.due, u.type, u.payload, u.e1, u.e2, u.e3, u.e4
      FROM unnest(v_ids, i_deliver_at, i_types, i_payloads, i_extra1, i_extra2, i_extra3, i_extra4)
           AS u(id, due, type, payload, e1, e2, e3, e4);
    RETURN v_ids;
END
$$;

-- Internal: moves at most i_limit of queue i_q's held events that are due now (NULL: all) into
-- the queue, earliest due first (equal due times in the order they were sent), as new events in
-- that order. The caller holds the queue's tickers' lock. A queue that refuses inserts keeps its
-- events held until it takes them again. Returns how many moved.
CREATE OR REPLACE FUNCTION pgque.delayed_move(i_q pgque.queue, i_limit int)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    d record;
BEGIN
    IF i_q.queue_disable_insert AND current_setting('session_replication_role') <> 'replica' THEN
        RETURN 0;
    END IF;
    WITH due AS (
        DELETE FROM pgque.delayed_events de
         WHERE de.de_id IN (SELECT x.de_id FROM pgque.delayed_events x
                             WHERE x.de_queue_name = i_q.queue_name AND x.de_deliver_at <= now()
                             ORDER BY x.de_deliver_at, x.de_id
                             LIMIT i_limit
                             FOR UPDATE SKIP LOCKED)
        RETURNING de.*)
    SELECT count(*)::int AS n,
           array_agg(de_type ORDER BY de_deliver_at, de_id) AS types,
           array_agg(de_data ORDER BY de_deliver_at, de_id) AS payloads,
           array_agg(de_extra1 ORDER BY de_deliver_at, de_id) AS e1,
           array_agg(de_extra2 ORDER BY de_deliver_at, de_id) AS e2,
           array_agg(de_extra3 ORDER BY de_deliver_at, de_id) AS e3,
           array_agg(de_extra4 ORDER BY de_deliver_at, de_id) AS e4
      INTO d
      FROM due;
    IF d.n > 0 THEN
        PERFORM pgque.event_insert_raw(i_q, d.types, d.payloads, d.e1, d.e2, d.e3, d.e4);
    END IF;
    RETURN d.n;
END
$$;

-- Fills hook_due_events: the ticker of queue i_q (which holds its tickers' lock) moves what is
-- due, at most delayed_move_limit() events a tick.
CREATE OR REPLACE FUNCTION pgque.hook_due_events(i_q pgque.queue)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.delayed_move(i_q, pgque.delayed_move_limit());
END
$$;

-- Fills hook_has_due_events: whether queue i_q holds an event due now (one probe of the due index).
CREATE OR REPLACE FUNCTION pgque.hook_has_due_events(i_q pgque.queue)
RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM pgque.delayed_events
                    WHERE de_queue_name = i_q.queue_name AND de_deliver_at <= now());
END
$$;

-- PgQue's send_at: due now (or past), the event is sent at once and its event id returned; due
-- later, it is held and the scheduled id (not an event id) returned. A NULL time is refused as
-- PgQue refuses it (the held row's NOT NULL).
CREATE OR REPLACE FUNCTION pgque.send_at(i_queue text, i_type text, i_payload text, i_deliver_at timestamptz,
    i_partition_key text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_deliver_at <= now() THEN
        RETURN pgque.insert_event(i_queue, i_type, i_payload, i_partition_key, NULL, NULL, NULL);
    END IF;
    PERFORM pgque.delayed_check_times(ARRAY[i_deliver_at]);
    RETURN (pgque.delayed_hold(pgque.delayed_queue(i_queue), ARRAY[i_deliver_at], ARRAY[i_type], ARRAY[i_payload],
                               ARRAY[i_partition_key], NULL, NULL, NULL))[1];
END
$$;

CREATE OR REPLACE FUNCTION pgque.send_at(i_queue text, i_type text, i_payload jsonb, i_deliver_at timestamptz,
    i_partition_key text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.send_at(i_queue, i_type, i_payload::text, i_deliver_at, i_partition_key);
END
$$;

CREATE OR REPLACE FUNCTION pgque.send_at(i_queue text, i_type text, i_payload jsonb, i_deliver_at timestamptz)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.send_at(i_queue, i_type, i_payload::text, i_deliver_at, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.send_at(i_queue text, i_type text, i_payload text, i_deliver_at timestamptz)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.send_at(i_queue, i_type, i_payload, i_deliver_at, NULL);
END
$$;

-- The batch form, for the sink: send_events with a due time per event (a NULL array, or a NULL
-- element: due now). Events due now are sent at once, in input order; the others are held, in
-- input order. One row per input position: the event id of an event sent, or the scheduled id of
-- one held.
CREATE OR REPLACE FUNCTION pgque.send_events_at(i_queue text, i_deliver_at timestamptz[], i_types text[],
    i_payloads text[], i_partition_keys text[] DEFAULT NULL, i_extra2 text[] DEFAULT NULL,
    i_extra3 text[] DEFAULT NULL, i_extra4 text[] DEFAULT NULL)
RETURNS TABLE (ord int, event_id bigint, scheduled_id bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    s record;
    v_now bigint[];
    v_held bigint[];
BEGIN
    PERFORM pgque.event_check_arrays(i_payloads, i_types, i_partition_keys, i_extra2, i_extra3, i_extra4);
    IF i_deliver_at IS NOT NULL AND (array_ndims(i_deliver_at) > 1 OR cardinality(i_deliver_at) <> cardinality(i_payloads)) THEN
        RAISE EXCEPTION 'i_deliver_at must have as many elements as payloads (%)', cardinality(i_payloads)
            USING ERRCODE = '22023';
    END IF;
    PERFORM pgque.delayed_check_times(i_deliver_at);
    q := pgque.queue_row(i_queue);
    -- The input split by position into what is due now and what waits, each keeping input order.
    SELECT array_agg(u.n ORDER BY u.n) FILTER (WHERE u.held) AS held_ords,
           array_agg(u.n ORDER BY u.n) FILTER (WHERE NOT u.held) AS now_ords,
           array_agg(u.due ORDER BY u.n) FILTER (WHERE u.held) AS due,
           array_agg(u.type ORDER BY u.n) FILTER (WHERE u.held) AS held_types,
           array_agg(u.type ORDER BY u.n) FILTER (WHERE NOT u.held) AS now_types,
           array_agg(u.payload ORDER BY u.n) FILTER (WHERE u.held) AS held_payloads,
           array_agg(u.payload ORDER BY u.n) FILTER (WHERE NOT u.held) AS now_payloads,
           array_agg(u.e1 ORDER BY u.n) FILTER (WHERE u.held) AS held_e1,
           array_agg(u.e1 ORDER BY u.n) FILTER (WHERE NOT u.held) AS now_e1,
           array_agg(u.e2 ORDER BY u.n) FILTER (WHERE u.held) AS held_e2,
           array_agg(u.e2 ORDER BY u.n) FILTER (WHERE NOT u.held) AS now_e2,
           array_agg(u.e3 ORDER BY u.n) FILTER (WHERE u.held) AS held_e3,
           array_agg(u.e3 ORDER BY u.n) FILTER (WHERE NOT u.held) AS now_e3,
           array_agg(u.e4 ORDER BY u.n) FILTER (WHERE u.held) AS held_e4,
           array_agg(u.e4 ORDER BY u.n) FILTER (WHERE NOT u.held) AS now_e4
      INTO s
      FROM (SELECT a.n, a.due, a.due IS NOT NULL AND a.due > now() AS held, a.type, a.payload, a.e1, a.e2, a.e3, a.e4
              FROM unnest(coalesce(i_deliver_at, array_fill(NULL::timestamptz, ARRAY[cardinality(i_payloads)])),
                          i_types, i_payloads, i_partition_keys, i_extra2, i_extra3, i_extra4)
                   WITH ORDINALITY AS a(due, type, payload, e1, e2, e3, e4, n)) u;
    IF s.now_ords IS NOT NULL THEN
        v_now := pgque.event_insert_raw(q, s.now_types, s.now_payloads, s.now_e1, s.now_e2, s.now_e3, s.now_e4);
    END IF;
    IF s.held_ords IS NOT NULL THEN
        v_held := pgque.delayed_hold(pgque.delayed_queue(i_queue), s.due, s.held_types, s.held_payloads,
                                     s.held_e1, s.held_e2, s.held_e3, s.held_e4);
    END IF;
    RETURN QUERY
        SELECT x.n::int, x.id, NULL::bigint FROM unnest(s.now_ords, v_now) AS x(n, id)
        UNION ALL
        SELECT x.n::int, NULL::bigint, x.id FROM unnest(s.held_ords, v_held) AS x(n, id)
        ORDER BY 1;
END
$$;

-- PgQue's mover: every held event that is due, of every queue (paused and external-ticker queues
-- too), into its queue; returns how many. A queue another ticker is ticking at this moment is
-- left to that ticker, which moves its due events itself. maint() calls it.
CREATE OR REPLACE FUNCTION pgque.maint_deliver_delayed()
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_moved int;
    v_total int := 0;
BEGIN
    -- One probe of the due end of the index per queue (a LATERAL with LIMIT is not turned into a
    -- join, which could read every held row).
    FOR q IN SELECT qq.* FROM pgque.queue qq
              CROSS JOIN LATERAL (SELECT 1 FROM pgque.delayed_events d
                                   WHERE d.de_queue_name = qq.queue_name AND d.de_deliver_at <= now() LIMIT 1) due
              ORDER BY qq.queue_name LOOP
        CONTINUE WHEN NOT pgque.tick_lock(q.queue_id, false);
        -- Read under the lock, as the ticker does.
        SELECT * INTO q FROM pgque.queue WHERE queue_id = q.queue_id;
        LOOP
            v_moved := pgque.delayed_move(q, pgque.delayed_move_limit());
            v_total := v_total + v_moved;
            EXIT WHEN v_moved < pgque.delayed_move_limit();
        END LOOP;
    END LOOP;
    RETURN v_total;
END
$$;

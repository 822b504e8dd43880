--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Consuming: subscriptions, batches, and which events a batch holds. Reader role.
--
-- Layer: core (README.md). Calls 20_queue.sql. The modes above (52_coop.sql,
-- 55_partition.sql to 60_resize.sql) build on these functions; where a plain call meets a row
-- of a mode, or a batch a mode gates, the core asks one of the hooks below, never the mode.

-- Hooks: the core's own answer is the body here; the one layer named with each replaces the
-- body (CREATE OR REPLACE, same signature) with its own. The core asks them only about rows
-- whose sub_role is not 'normal', or (the cap) about slot subscriptions, so a plain consumer
-- pays no call for them.

-- Hook, filled by 52_coop.sql: a plain call (i_call: 'next_batch' opening a batch, 'reposition'
-- moving the cursor) on a subscription of another role. Raises to refuse the call, returns to
-- let it go on. The core has no such rows, and refuses.
CREATE OR REPLACE FUNCTION pgque.hook_refuse_plain(i_sub pgque.subscription, i_queue text, i_consumer text,
    i_call text)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'consumer % on queue % is not a plain consumer (role %)', i_consumer, i_queue, i_sub.sub_role
        USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
END
$$;

-- Hook, filled by 52_coop.sql: unregister_consumer of a subscription of another role, asked
-- before its row is locked (a mode may lock other rows first) and again once it is. NULL lets
-- the core remove the row as a plain one; a number is the call's result, the mode having done
-- the work. The core has no such rows.
CREATE OR REPLACE FUNCTION pgque.hook_unregister(i_sub pgque.subscription, i_queue text, i_consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN NULL;
END
$$;

-- Hook, filled by 52_coop.sql: the cursor a subscription of role i_role keeps when its batch
-- i_batch_id, which ends at tick i_next_tick, is finished. Raises to refuse the finish. The core
-- moves the cursor to the batch's end.
CREATE OR REPLACE FUNCTION pgque.hook_closed_cursor(i_role text, i_next_tick bigint, i_batch_id bigint)
RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN i_next_tick;
END
$$;

-- Hook, filled by 55_partition.sql: the last tick a batch of slot subscription i_consumer (a
-- name with #) may end at, NULL for no limit. STABLE: callers read it in the same expression
-- that chooses the batch's end, so both see one snapshot. The core sets no limit.
CREATE OR REPLACE FUNCTION pgque.hook_batch_end_cap(i_queue_id int4, i_consumer text)
RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN NULL;
END
$$;

-- Internal: the subscription of a consumer, locked for the rest of the transaction (this row
-- lock is the receive lock), or NULL fields when the consumer is not subscribed.
CREATE OR REPLACE FUNCTION pgque.sub_lock(i_queue_id int4, i_consumer text)
RETURNS pgque.subscription
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
BEGIN
    SELECT sub.* INTO s FROM pgque.subscription sub JOIN pgque.consumer c ON c.co_id = sub.sub_consumer
     WHERE sub.sub_queue = i_queue_id AND c.co_name = i_consumer
       FOR UPDATE OF sub;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    RETURN s;
END
$$;

-- The hash slot of a partition key among n slots: sign-normalised, NULL key in slot 0.
-- hashtextextended (not hashtext) because its values are stable across PostgreSQL majors.
-- The core's, because a window can be read one hash class at a time (window_scan_rows below:
-- a partition slot's share of it); producers may call it too. No SET clause and fully qualified
-- names, so the planner can inline it into batch reads (the scans call it from dynamic SQL).
CREATE OR REPLACE FUNCTION pgque.slot_of(i_key text, i_n int)
RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN i_key IS NULL THEN 0
                ELSE ((pg_catalog.hashtextextended(i_key, 0) % i_n + i_n) % i_n)::int END
$$;

-- Internal: refuses a partition slot's subscription name ("<consumer>#<k>/<N>") in a plain
-- call. A slot is read, acked and retried only under its lease (the *_partitioned functions);
-- a plain call would go around it: open the slot's batch with no lease, read every hash class
-- of its window, or ack events the lease holder never saw.
CREATE OR REPLACE FUNCTION pgque.sub_refuse_slot(i_consumer text, i_use text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF position('#' IN coalesce(i_consumer, '')) > 0 THEN
        RAISE EXCEPTION 'consumer % is a partition slot consumer; use %', i_consumer, i_use
            USING ERRCODE = 'PQ009', HINT = '# is reserved for the slots of partitioned consumers.';
    END IF;
END
$$;

-- Internal: refuses a plain call on a partition slot's batch (see sub_refuse_slot).
CREATE OR REPLACE FUNCTION pgque.batch_refuse_slot(i_batch_id bigint, i_use text)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_consumer text := pgque.batch_consumer_name(i_batch_id);
BEGIN
    IF position('#' IN coalesce(v_consumer, '')) > 0 THEN
        RAISE EXCEPTION 'batch % belongs to partition slot consumer %; use %', i_batch_id, v_consumer, i_use
            USING ERRCODE = 'PQ009';
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.register_consumer_at(x_queue_name text, x_consumer_name text, x_tick_pos bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.sub_refuse_slot(x_consumer_name, 'pgque.subscribe_partitioned()');
    RETURN pgque.sub_register(x_queue_name, x_consumer_name, x_tick_pos);
END
$$;

-- Internal: register_consumer_at for any name, slots included (their own set-up calls it).
CREATE OR REPLACE FUNCTION pgque.sub_register(i_queue text, i_consumer text, i_tick_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    s pgque.subscription;
    v_co int4;
    v_tick bigint;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_name = i_queue;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'Event queue not created yet' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001', DETAIL = format('queue: %s', i_queue);
    END IF;
    IF i_consumer IS NULL OR i_consumer = '' THEN
        RAISE EXCEPTION 'consumer name must not be null or empty' USING ERRCODE = '22023';
    END IF;
    IF i_tick_id IS NULL THEN
        SELECT max(tick_id) INTO v_tick FROM pgque.tick WHERE tick_queue = q.queue_id;
        IF v_tick IS NULL THEN
            RAISE EXCEPTION 'No ticks for this queue.  Please run ticker on database.' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
                DETAIL = format('queue: %s', i_queue);
        END IF;
    ELSE
        SELECT tick_id INTO v_tick FROM pgque.tick WHERE tick_queue = q.queue_id AND tick_id = i_tick_id;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'cannot reposition, tick not found: %', i_tick_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
                DETAIL = format('Queue %s has no tick %s (any more).', i_queue, i_tick_id);
        END IF;
    END IF;
    INSERT INTO pgque.consumer (co_name) VALUES (i_consumer) ON CONFLICT (co_name) DO NOTHING;
    SELECT co_id INTO v_co FROM pgque.consumer WHERE co_name = i_consumer;
    INSERT INTO pgque.subscription (sub_queue, sub_consumer, sub_last_tick)
    VALUES (q.queue_id, v_co, v_tick)
    ON CONFLICT (sub_queue, sub_consumer) DO NOTHING;
    IF FOUND THEN
        RETURN 1;
    END IF;
    IF i_tick_id IS NOT NULL THEN
        SELECT * INTO s FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_consumer = v_co;
        IF s.sub_role <> 'normal' THEN
            PERFORM pgque.hook_refuse_plain(s, i_queue, i_consumer, 'reposition');
        END IF;
        -- Reposition an existing subscription; its open batch, if any, is abandoned.
        UPDATE pgque.subscription
           SET sub_last_tick = v_tick, sub_batch = NULL, sub_next_tick = NULL, sub_active = now()
         WHERE sub_queue = q.queue_id AND sub_consumer = v_co;
    END IF;
    RETURN 0;
END
$$;

CREATE OR REPLACE FUNCTION pgque.register_consumer(x_queue_name text, x_consumer_name text)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT pgque.register_consumer_at(x_queue_name, x_consumer_name, NULL)
$$;

CREATE OR REPLACE FUNCTION pgque.unregister_consumer(x_queue_name text, x_consumer_name text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.sub_refuse_slot(x_consumer_name, 'pgque.unsubscribe_partitioned() or pgque.unsubscribe_slot()');
    RETURN pgque.sub_unregister(x_queue_name, x_consumer_name);
END
$$;

-- Internal: the consumer row goes when nothing refers to it any more: no subscription, and no
-- dead letter (dead letters are evidence; they keep their consumer row, and a consumer that
-- subscribes again under the name finds them).
CREATE OR REPLACE FUNCTION pgque.consumer_forget(i_co_id int4)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    DELETE FROM pgque.consumer c
     WHERE c.co_id = i_co_id
       AND NOT EXISTS (SELECT 1 FROM pgque.subscription o WHERE o.sub_consumer = c.co_id)
       AND NOT EXISTS (SELECT 1 FROM pgque.dead_letter d WHERE d.dl_consumer_id = c.co_id);
END
$$;

-- Internal: unregister_consumer for any name, slots included.
CREATE OR REPLACE FUNCTION pgque.sub_unregister(i_queue text, i_consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue);
    s pgque.subscription;
    v_done integer;
BEGIN
    -- A row of a mode goes to the mode's hook, before its lock is taken here (a mode may lock
    -- other rows first) and again once it is held (the row may have become the mode's meanwhile).
    SELECT sub.* INTO s FROM pgque.subscription sub JOIN pgque.consumer c ON c.co_id = sub.sub_consumer
     WHERE sub.sub_queue = q.queue_id AND c.co_name = i_consumer;
    IF s.sub_role <> 'normal' THEN
        v_done := pgque.hook_unregister(s, i_queue, i_consumer);
        IF v_done IS NOT NULL THEN
            RETURN v_done;
        END IF;
    END IF;
    s := pgque.sub_lock(q.queue_id, i_consumer);
    IF s.sub_id IS NULL THEN
        RETURN 0;
    END IF;
    IF s.sub_role <> 'normal' THEN
        v_done := pgque.hook_unregister(s, i_queue, i_consumer);
        IF v_done IS NOT NULL THEN
            RETURN v_done;
        END IF;
    END IF;
    DELETE FROM pgque.retry_queue WHERE ev_queue = q.queue_id AND ev_owner = s.sub_id;
    DELETE FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_consumer = s.sub_consumer;
    PERFORM pgque.consumer_forget(s.sub_consumer);
    RETURN 1;
END
$$;

CREATE OR REPLACE FUNCTION pgque.subscribe(queue text, consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF position('#' IN coalesce(consumer, '')) > 0 THEN
        RAISE EXCEPTION 'consumer name must not contain the reserved character #: %', consumer
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', HINT = '# separates the slots of a partitioned consumer; use pgque.subscribe_partitioned().';
    END IF;
    RETURN pgque.register_consumer(queue, consumer);
END
$$;

CREATE OR REPLACE FUNCTION pgque.unsubscribe(queue text, consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF position('#' IN coalesce(consumer, '')) > 0 THEN
        RAISE EXCEPTION 'consumer % is a partition slot; use pgque.unsubscribe_partitioned() or pgque.unsubscribe_slot()', consumer
            USING ERRCODE = 'PQ009';
    END IF;
    RETURN pgque.unregister_consumer(queue, consumer);
END
$$;

-- Internal: the tick that ends the next batch after cursor tick i_last (NULL fields when there
-- is none yet): the first later tick, or with i_min_count / i_min_interval the first one far
-- enough from the cursor, never younger than i_min_lag. The modes' batches end here too.
CREATE OR REPLACE FUNCTION pgque.batch_next_tick(i_last pgque.tick, i_min_lag interval, i_min_count int4,
    i_min_interval interval)
RETURNS pgque.tick
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_next pgque.tick;
BEGIN
    SELECT t.* INTO v_next FROM pgque.tick t
     WHERE t.tick_queue = i_last.tick_queue AND t.tick_id > i_last.tick_id
       AND (i_min_lag IS NULL OR t.tick_time <= now() - i_min_lag)
       AND ((i_min_count IS NULL AND i_min_interval IS NULL)
            OR (i_min_count IS NOT NULL AND t.tick_event_seq - i_last.tick_event_seq >= i_min_count)
            OR (i_min_interval IS NOT NULL AND t.tick_time - i_last.tick_time >= i_min_interval))
     ORDER BY t.tick_id
     LIMIT 1;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    RETURN v_next;
END
$$;

-- Internal: the last tick after i_first (itself qualifying as the end of the next batch after
-- i_last) that ends a window of at most i_window_events events of the queue, never past i_cap
-- nor younger than i_min_lag; i_first when even the next tick ends a larger window. A reader
-- that fell several ticks behind takes them as one batch: it catches up in one read-send-ack
-- cycle per window rather than one per tick.
CREATE OR REPLACE FUNCTION pgque.batch_window_tick(i_last pgque.tick, i_first pgque.tick, i_window_events bigint,
    i_cap bigint, i_min_lag interval)
RETURNS pgque.tick
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN coalesce(
        (SELECT t FROM pgque.tick t
          WHERE t.tick_queue = i_first.tick_queue AND t.tick_id > i_first.tick_id
            AND (i_cap IS NULL OR t.tick_id <= i_cap)
            AND (i_min_lag IS NULL OR t.tick_time <= now() - i_min_lag)
            -- Events, not ids: a forced tick's ids (tick_forced_ids) hold no event.
            AND (t.tick_event_seq - t.tick_forced_ids) - (i_last.tick_event_seq - i_last.tick_forced_ids) <= i_window_events
          ORDER BY t.tick_id DESC
          LIMIT 1),
        i_first);
END
$$;

-- Internal: the tick that ends the next batch after cursor tick i_last (batch_next_tick), NULL
-- when there is none yet or it lies past i_cap (a resize's seal: then none before it qualifies
-- either); with i_window_events as many ticks as that window holds (batch_window_tick). Opening a
-- batch and reading one ahead choose its end here, so a batch read ahead ends where it will.
CREATE OR REPLACE FUNCTION pgque.batch_end_tick(i_last pgque.tick, i_min_lag interval, i_min_count int4,
    i_min_interval interval, i_cap bigint, i_window_events bigint)
RETURNS pgque.tick
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_next pgque.tick := pgque.batch_next_tick(i_last, i_min_lag, i_min_count, i_min_interval);
BEGIN
    IF v_next.tick_id IS NULL OR v_next.tick_id > i_cap THEN
        RETURN NULL;
    END IF;
    IF i_window_events IS NOT NULL THEN
        RETURN pgque.batch_window_tick(i_last, v_next, i_window_events, i_cap, i_min_lag);
    END IF;
    RETURN v_next;
END
$$;

-- Internal: next_batch_custom, and with i_window_events a batch over as many ticks as the
-- window holds (batch_window_tick) when the consumer is behind by more than one.
CREATE OR REPLACE FUNCTION pgque.batch_open(i_queue text, i_consumer text,
    i_min_lag interval, i_min_count int4, i_min_interval interval, i_window_events bigint,
    OUT batch_id bigint, OUT cur_tick_id bigint, OUT prev_tick_id bigint,
    OUT cur_tick_time timestamptz, OUT prev_tick_time timestamptz,
    OUT cur_tick_event_seq bigint, OUT prev_tick_event_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    s pgque.subscription;
    v_last pgque.tick;
    v_next pgque.tick;
BEGIN
    q := pgque.queue_row(i_queue);
    s := pgque.sub_lock(q.queue_id, i_consumer);
    IF s.sub_id IS NULL THEN
        RAISE EXCEPTION 'Not subscriber to queue: %/%', i_queue, i_consumer USING ERRCODE = 'PQ002';
    END IF;
    IF s.sub_role <> 'normal' THEN
        PERFORM pgque.hook_refuse_plain(s, i_queue, i_consumer, 'next_batch');
    END IF;
    SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id AND tick_id = s.sub_last_tick;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'PgQ corruption: Consumer % on queue % does not see tick %', i_consumer, i_queue, s.sub_last_tick
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000', DETAIL = 'The tick at the consumer''s position no longer exists.';
    END IF;
    prev_tick_id := v_last.tick_id;
    prev_tick_time := v_last.tick_time;
    prev_tick_event_seq := v_last.tick_event_seq;

    IF s.sub_batch IS NOT NULL THEN
        SELECT * INTO v_next FROM pgque.tick WHERE tick_queue = q.queue_id AND tick_id = s.sub_next_tick;
        batch_id := s.sub_batch;
    ELSE
        -- A slot's batch may be capped (hook_batch_end_cap: a resize's seal). The cap and the
        -- batch end are read in one expression, so from one snapshot (the functions are
        -- STABLE): read apart, a begin_resize and one more tick committing in between would
        -- leave this slot without the cap and with a tick past the seal to end its batch at.
        v_next := pgque.batch_end_tick(v_last, i_min_lag, i_min_count, i_min_interval,
                                       CASE WHEN position('#' IN i_consumer) > 0
                                            THEN pgque.hook_batch_end_cap(q.queue_id, i_consumer) END,
                                       i_window_events);
        IF v_next.tick_id IS NULL THEN
            RETURN;
        END IF;
        batch_id := nextval('pgque.batch_id_seq');
        UPDATE pgque.subscription
           SET sub_batch = batch_id, sub_next_tick = v_next.tick_id, sub_active = now(), sub_was_coop_main = false
         WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
    END IF;
    cur_tick_id := v_next.tick_id;
    cur_tick_time := v_next.tick_time;
    cur_tick_event_seq := v_next.tick_event_seq;
END
$$;

-- Opens the consumer's next batch, or re-issues the open one. The subscription row lock taken
-- here (the receive lock) makes concurrent callers of one consumer wait and then get the same
-- batch, never two different ones.
CREATE OR REPLACE FUNCTION pgque.next_batch_custom(i_queue_name text, i_consumer_name text,
    i_min_lag interval, i_min_count int4, i_min_interval interval,
    OUT batch_id bigint, OUT cur_tick_id bigint, OUT prev_tick_id bigint,
    OUT cur_tick_time timestamptz, OUT prev_tick_time timestamptz,
    OUT cur_tick_event_seq bigint, OUT prev_tick_event_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.sub_refuse_slot(i_consumer_name, 'pgque.receive_partitioned()');
    SELECT * INTO batch_id, cur_tick_id, prev_tick_id, cur_tick_time, prev_tick_time, cur_tick_event_seq,
                  prev_tick_event_seq
      FROM pgque.batch_open(i_queue_name, i_consumer_name, i_min_lag, i_min_count, i_min_interval, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.next_batch_info(i_queue_name text, i_consumer_name text,
    OUT batch_id bigint, OUT cur_tick_id bigint, OUT prev_tick_id bigint,
    OUT cur_tick_time timestamptz, OUT prev_tick_time timestamptz,
    OUT cur_tick_event_seq bigint, OUT prev_tick_event_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    SELECT * INTO batch_id, cur_tick_id, prev_tick_id, cur_tick_time, prev_tick_time, cur_tick_event_seq,
                  prev_tick_event_seq
      FROM pgque.next_batch_custom(i_queue_name, i_consumer_name, NULL, NULL, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.next_batch(i_queue_name text, i_consumer_name text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (SELECT b.batch_id FROM pgque.next_batch_custom(i_queue_name, i_consumer_name, NULL, NULL, NULL) b);
END
$$;

-- Internal: the query over the events of a window of the queue -- between the ticks with
-- snapshots i_snap1 and i_snap2, for subscription i_sub_id -- in ev_id order, optionally after a
-- given ev_id, at most i_limit of them, and optionally only those of one hash slot (i_slot of
-- i_n); as text, the window's bounds written in as literals, for the caller to run with RETURN
-- QUERY EXECUTE. Its rows are the event rows (batch_event_rows' columns), or with
-- i_message_batch the messages of that batch, followed by the values i_also as bigint columns. Callers run it themselves rather than through a
-- set-returning function because each such layer copies every row of the page once more.
--
-- An event belongs to the window (earlier snapshot S1, later snapshot S2) when its transaction
-- is visible in S2 but not in S1 -- also when that transaction started long before S1 and
-- committed late. Candidates are found through the ev_txid index: every txid from xmax(S1) up to
-- xmax(S2), plus the transactions still in progress at S1. Which events those are is fixed once
-- the later tick exists, whoever reads them and whenever.
CREATE OR REPLACE FUNCTION pgque.window_scan_sql(i_q pgque.queue, i_sub_id int4, i_snap1 pg_snapshot,
    i_snap2 pg_snapshot, i_after_ev_id bigint, i_limit int, i_slot int, i_n int, i_message_batch bigint,
    i_also bigint[] DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.window_scan_rows(i_q, i_sub_id, i_snap1, i_snap2, i_after_ev_id, i_slot, i_n, i_message_batch,
                                  i_also)
           || ' ORDER BY 1' || CASE WHEN i_limit IS NULL THEN '' ELSE ' LIMIT ' || i_limit END;
END
$$;

-- Internal: window_scan_sql's query without its order and limit: the window's rows in the order
-- the scan meets them.
CREATE OR REPLACE FUNCTION pgque.window_scan_rows(i_q pgque.queue, i_sub_id int4, i_snap1 pg_snapshot,
    i_snap2 pg_snapshot, i_after_ev_id bigint, i_slot int, i_n int, i_message_batch bigint, i_also bigint[])
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_columns text;
    v_filter text;
BEGIN
    IF i_message_batch IS NULL THEN
        v_columns := 'e.ev_id, e.ev_time, e.ev_txid, e.ev_retry, e.ev_type, e.ev_data, '
                     'e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4';
    ELSE
        v_columns := pgque.window_message_columns(i_message_batch);
    END IF;
    -- Constant columns after those (e.g. the ticks of a batch read ahead).
    v_columns := v_columns || coalesce((SELECT string_agg(format(', %s::bigint', a), '') FROM unnest(i_also) a), '');
    v_filter := format('(e.ev_owner IS NULL OR e.ev_owner = %s)', i_sub_id);
    IF i_after_ev_id IS NOT NULL THEN
        v_filter := v_filter || format(' AND e.ev_id > %s', i_after_ev_id);
    END IF;
    -- One slot holds every event: no key to hash.
    IF i_n IS NOT NULL AND i_n > 1 THEN
        v_filter := v_filter || format(' AND pgque.slot_of(e.ev_extra1, %s) = %s', i_n, i_slot);
    END IF;
    RETURN pgque.window_scan_select(i_q, i_snap1, i_snap2, v_columns, v_filter);
END
$$;

-- Internal: the columns of pgque.message over an event row e, as messages of batch i_batch_id
-- (read_ahead_query hands queries with them to readers).
CREATE OR REPLACE FUNCTION pgque.window_message_columns(i_batch_id bigint)
RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN format('e.ev_id AS msg_id, %s::bigint AS batch_id, e.ev_type AS type, e.ev_data AS payload, '
                  'e.ev_retry AS retry_count, e.ev_time AS created_at, e.ev_extra1 AS extra1, '
                  'e.ev_extra2 AS extra2, e.ev_extra3 AS extra3, e.ev_extra4 AS extra4', i_batch_id);
END
$$;

-- Internal: SELECT i_columns over the event rows e of the window between the ticks with
-- snapshots i_snap1 and i_snap2 that also satisfy i_filter, from every event table that can hold
-- them (see window_scan_sql), in the order the scan meets them.
CREATE OR REPLACE FUNCTION pgque.window_scan_select(i_q pgque.queue, i_snap1 pg_snapshot, i_snap2 pg_snapshot,
    i_columns text, i_filter text)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_tx_min bigint;
    v_tx_max bigint;
    v_tables text[];
    v_filter text;
BEGIN
    -- Which tables can hold the window: before the last switch only the previous table, once
    -- the switch is settled only the current one, in between both.
    v_tx_min := pg_snapshot_xmin(i_snap1)::text::bigint;
    v_tx_max := pg_snapshot_xmax(i_snap2)::text::bigint;
    IF v_tx_max < i_q.queue_switch_step1 THEN
        v_tables := ARRAY[pgque.event_table_name(i_q.queue_id,
                              (i_q.queue_cur_table + i_q.queue_ntables - 1) % i_q.queue_ntables)];
    ELSIF i_q.queue_switch_step2 IS NOT NULL AND v_tx_min > i_q.queue_switch_step2 THEN
        v_tables := ARRAY[pgque.event_table_name(i_q.queue_id, i_q.queue_cur_table)];
    ELSE
        v_tables := ARRAY[pgque.event_table_name(i_q.queue_id, i_q.queue_cur_table),
                          pgque.event_table_name(i_q.queue_id,
                              (i_q.queue_cur_table + i_q.queue_ntables - 1) % i_q.queue_ntables)];
    END IF;

    v_filter := format(
        '((e.ev_txid >= %L::xid8 AND e.ev_txid < %L::xid8) OR e.ev_txid = ANY (%L::xid8[]))
            AND pg_visible_in_snapshot(e.ev_txid, %L::pg_snapshot)
            AND NOT pg_visible_in_snapshot(e.ev_txid, %L::pg_snapshot)
            AND %s',
        pg_snapshot_xmax(i_snap1), pg_snapshot_xmax(i_snap2), ARRAY(SELECT pg_snapshot_xip(i_snap1)),
        i_snap2, i_snap1, i_filter);

    RETURN (SELECT string_agg(format('SELECT %s FROM %s e WHERE %s', i_columns, t, v_filter), ' UNION ALL ')
              FROM unnest(v_tables) AS t);
END
$$;

-- Internal: window_scan_sql over the window of open batch i_batch_id.
CREATE OR REPLACE FUNCTION pgque.batch_scan_sql(i_batch_id bigint, i_after_ev_id bigint, i_limit int,
    i_slot int, i_n int, i_messages boolean)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v record;
BEGIN
    SELECT q AS queue, sub.sub_id, t1.tick_snapshot AS snap1, t2.tick_snapshot AS snap2
      INTO v
      FROM pgque.subscription sub
      JOIN pgque.queue q ON q.queue_id = sub.sub_queue
      JOIN pgque.tick t1 ON t1.tick_queue = sub.sub_queue AND t1.tick_id = sub.sub_last_tick
      JOIN pgque.tick t2 ON t2.tick_queue = sub.sub_queue AND t2.tick_id = sub.sub_next_tick
     WHERE sub.sub_batch = i_batch_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    RETURN pgque.window_scan_sql(v.queue, v.sub_id, v.snap1, v.snap2, i_after_ev_id, i_limit, i_slot, i_n,
                                 CASE WHEN i_messages THEN i_batch_id END);
END
$$;

-- Internal: the events of an open batch, in ev_id order, optionally after a given ev_id, at
-- most i_limit of them, and optionally only those of one hash slot (i_slot of i_n); see
-- window_scan_sql for which events a batch holds.
CREATE OR REPLACE FUNCTION pgque.batch_event_rows(i_batch_id bigint, i_after_ev_id bigint, i_limit int,
    i_slot int, i_n int)
RETURNS TABLE (ev_id bigint, ev_time timestamptz, ev_txid xid8, ev_retry int4, ev_type text, ev_data text,
               ev_extra1 text, ev_extra2 text, ev_extra3 text, ev_extra4 text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY EXECUTE pgque.batch_scan_sql(i_batch_id, i_after_ev_id, i_limit, i_slot, i_n, false);
END
$$;

CREATE OR REPLACE FUNCTION pgque.get_batch_events(x_batch_id bigint)
RETURNS TABLE (ev_id bigint, ev_time timestamptz, ev_txid bigint, ev_retry int4, ev_type text, ev_data text,
               ev_extra1 text, ev_extra2 text, ev_extra3 text, ev_extra4 text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.batch_refuse_slot(x_batch_id, 'pgque.read_batch_partitioned()');
    RETURN QUERY
    SELECT r.ev_id, r.ev_time, r.ev_txid::text::bigint, r.ev_retry, r.ev_type, r.ev_data,
           r.ev_extra1, r.ev_extra2, r.ev_extra3, r.ev_extra4
      FROM pgque.batch_event_rows(x_batch_id, NULL, NULL, NULL, NULL) r;
END
$$;

-- Internal: a page of a batch as messages.
CREATE OR REPLACE FUNCTION pgque.batch_messages(i_batch_id bigint, i_after_ev_id bigint, i_limit int, i_slot int, i_n int)
RETURNS SETOF pgque.message
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
    SELECT r.ev_id, i_batch_id, r.ev_type, r.ev_data, r.ev_retry, r.ev_time,
           r.ev_extra1, r.ev_extra2, r.ev_extra3, r.ev_extra4
      FROM pgque.batch_event_rows(i_batch_id, i_after_ev_id, i_limit, i_slot, i_n) r;
END
$$;

-- Internal: the first page of a freshly opened (or re-issued) batch. A batch with nothing to
-- hand out -- for a slot: nothing of its hash class -- is finished at once, so the cursor keeps
-- moving and no batch id is left dangling.
CREATE OR REPLACE FUNCTION pgque.batch_first_page(i_batch_id bigint, i_limit int, i_slot int, i_n int)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY SELECT * FROM pgque.batch_messages(i_batch_id, NULL, i_limit, i_slot, i_n);
    IF NOT FOUND THEN
        PERFORM pgque.batch_close(i_batch_id);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.finish_batch(x_batch_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.batch_refuse_slot(x_batch_id, 'pgque.ack_partitioned()');
    RETURN pgque.batch_close(x_batch_id);
END
$$;

-- Internal: finish_batch for any batch, slots' included (their lease is checked by the caller).
-- The cursor moves to the batch's end; a row of a mode keeps what its hook says.
CREATE OR REPLACE FUNCTION pgque.batch_close(i_batch_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    UPDATE pgque.subscription
       SET sub_last_tick = CASE WHEN sub_role = 'normal' THEN sub_next_tick
                                ELSE pgque.hook_closed_cursor(sub_role, sub_next_tick, i_batch_id) END,
           sub_next_tick = NULL, sub_batch = NULL, sub_active = now()
     WHERE sub_batch = i_batch_id;
    IF NOT FOUND THEN
        RAISE WARNING 'finish_batch: batch % not found', i_batch_id;
        RETURN 0;
    END IF;
    RETURN 1;
END
$$;

-- Internal: the consumer name of an open batch (NULL when no such batch).
CREATE OR REPLACE FUNCTION pgque.batch_consumer_name(i_batch_id bigint)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (SELECT c.co_name FROM pgque.subscription s JOIN pgque.consumer c ON c.co_id = s.sub_consumer
             WHERE s.sub_batch = i_batch_id
             LIMIT 1);
END
$$;

CREATE OR REPLACE FUNCTION pgque.receive(i_queue text, i_consumer text, i_max_return int DEFAULT 100)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_batch bigint;
BEGIN
    IF i_max_return IS NULL OR i_max_return < 1 THEN
        RAISE EXCEPTION 'pgque.receive: max_return must be >= 1, got %', i_max_return USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF position('#' IN coalesce(i_consumer, '')) > 0 THEN
        RAISE EXCEPTION 'consumer % is a partition slot consumer; use pgque.receive_partitioned()', i_consumer
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
    END IF;
    v_batch := pgque.next_batch(i_queue, i_consumer);
    IF v_batch IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT * FROM pgque.batch_first_page(v_batch, i_max_return, NULL, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.read_batch(i_batch_id bigint, i_after_msg_id bigint DEFAULT NULL, i_max_return int DEFAULT 1000)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_consumer text;
BEGIN
    IF i_max_return IS NULL OR i_max_return < 1 THEN
        RAISE EXCEPTION 'pgque.read_batch: max_return must be >= 1, got %', i_max_return USING ERRCODE = '22023';
    END IF;
    v_consumer := pgque.batch_consumer_name(i_batch_id);
    IF v_consumer IS NULL THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    IF position('#' IN v_consumer) > 0 THEN
        RAISE EXCEPTION 'batch % belongs to partition slot %; use pgque.read_batch_partitioned()', i_batch_id, v_consumer
            USING ERRCODE = 'PQ009';
    END IF;
    RETURN QUERY SELECT * FROM pgque.batch_messages(i_batch_id, i_after_msg_id, i_max_return, NULL, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.ack(i_batch_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_consumer text := pgque.batch_consumer_name(i_batch_id);
BEGIN
    IF position('#' IN coalesce(v_consumer, '')) > 0 THEN
        RAISE EXCEPTION 'batch % belongs to partition slot consumer %; use pgque.ack_partitioned()', i_batch_id, v_consumer
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
    END IF;
    RETURN pgque.batch_close(i_batch_id);
END
$$;

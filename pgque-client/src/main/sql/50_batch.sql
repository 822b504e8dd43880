--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Batches: opening a consumer's next batch (which tick ends it), reading its events, finishing
-- it. Reader role.
--
-- Layer: core (README.md). Calls 20_queue.sql, 45_subscription.sql and 47_window.sql. Where a
-- batch of a mode is opened or finished, the core asks one of the hooks below, never the mode.

-- Hooks: the core's own answer is the body here; the one layer named with each replaces the
-- body (CREATE OR REPLACE, same signature) with its own. The core asks them only about rows
-- whose sub_role is not 'normal', or (the cap) about slot subscriptions.

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
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
BEGIN
    RETURN NULL;
END
$$;

-- Hook, filled by 57_partition_pause.sql: the query over open batch i_batch_id of slot
-- subscription i_sub (see batch_scan_sql), which a slot may hand out other than the window holds.
-- The core reads the window.
CREATE OR REPLACE FUNCTION pgque.hook_slot_scan_sql(i_q pgque.queue, i_sub pgque.subscription, i_snap1 pg_snapshot,
    i_snap2 pg_snapshot, i_batch_id bigint, i_after_ev_id bigint, i_limit int, i_slot int, i_n int, i_messages boolean)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
BEGIN
    RETURN pgque.window_scan_sql(i_q, i_sub.sub_id, i_snap1, i_snap2, i_after_ev_id, i_limit, i_slot, i_n,
                                 CASE WHEN i_messages THEN i_batch_id END);
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

-- Internal: the tick that ends the next batch after cursor tick i_last (NULL fields when there
-- is none yet): the first later tick, or with i_min_count / i_min_interval the first one far
-- enough from the cursor, never younger than i_min_lag. The modes' batches end here too.
CREATE OR REPLACE FUNCTION pgque.batch_next_tick(i_last pgque.tick, i_min_lag interval, i_min_count int4,
    i_min_interval interval)
RETURNS pgque.tick
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
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
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
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
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
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

-- Internal: window_scan_sql over the window of open batch i_batch_id; a slot's batch (i_n given)
-- through hook_slot_scan_sql.
CREATE OR REPLACE FUNCTION pgque.batch_scan_sql(i_batch_id bigint, i_after_ev_id bigint, i_limit int,
    i_slot int, i_n int, i_messages boolean)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
DECLARE
    s pgque.subscription;
    q pgque.queue;
    v_snap1 pg_snapshot;
    v_snap2 pg_snapshot;
BEGIN
    -- Row by row, each by its key: one join of the four, planned while the tables looked empty,
    -- read whole indexes on every batch for the life of the session (enable_seqscan or not).
    SELECT * INTO s FROM pgque.subscription WHERE sub_batch = i_batch_id;
    IF FOUND THEN
        SELECT tick_snapshot INTO v_snap1 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = s.sub_last_tick;
        SELECT tick_snapshot INTO v_snap2 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = s.sub_next_tick;
    END IF;
    IF v_snap1 IS NULL OR v_snap2 IS NULL THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    SELECT * INTO q FROM pgque.queue WHERE queue_id = s.sub_queue;
    IF i_n IS NOT NULL THEN
        RETURN pgque.hook_slot_scan_sql(q, s, v_snap1, v_snap2, i_batch_id, i_after_ev_id, i_limit, i_slot, i_n,
                                        i_messages);
    END IF;
    RETURN pgque.window_scan_sql(q, s.sub_id, v_snap1, v_snap2, i_after_ev_id, i_limit, i_slot, i_n,
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
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
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

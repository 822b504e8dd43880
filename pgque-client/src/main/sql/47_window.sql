--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Windows: which events lie between two ticks, as the query text that reads them (a batch's
-- events, a slot's share of them, a window read ahead), and the hash of a partition key that
-- splits a window into slots. Internal, but slot_of() (reader and writer).
--
-- Layer: core (README.md). Calls 20_queue.sql.

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
LANGUAGE plpgsql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
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

--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- The small PgQ helpers that PgQ and PgQue scripts call: the table a direct producer writes
-- to, quoting a qualified name, a batch read through a cursor. Admin only unless noted in
-- 90_grants.sql.
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

--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: reading ahead. While a slot's open batch is on its way, its reader may read the
-- batches that will follow; they are opened once the open batch is acked. Reader role.
--
-- Layer: mode, partition (README.md). Calls the core, 55_partition.sql, 57_partition_lease.sql and
-- 57_partition_pause.sql.

-- (addition) Read-ahead, for a slot that is behind: while its open batch i_batch_id is on its
-- way, its reader may already read the batch that will follow. Which events lie between two
-- ticks is fixed once the later tick exists (window_scan_sql), so reading them before that batch
-- is opened reads exactly what it will hold. read_ahead_window names the batch -- an id drawn
-- now, and its ticks, chosen as receive_partitioned with i_window_events would choose them once
-- the open batch is acked -- read_ahead_partitioned reads its events, and
-- open_read_ahead_partitioned opens it after the ack, provided nothing moved in between. The
-- two reads check the lease but neither renew it nor lock anything: a reader runs them on a
-- connection of their own, beside its acks and renewals.
CREATE OR REPLACE FUNCTION pgque.read_ahead_window(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_window_events bigint,
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_check_lease(i_queue, i_consumer, i_slot, i_n, i_worker, false);
    w record := pgque.read_ahead_ticks(s, i_consumer, i_batch_id, i_window_events);
BEGIN
    IF w.to_tick IS NOT NULL THEN
        batch_id := nextval('pgque.batch_id_seq');
        from_tick := w.from_tick;
        to_tick := w.to_tick;
    END IF;
END
$$;

-- Internal: the ticks of the batch after i_sub's open batch i_batch_id (see read_ahead_window);
-- NULLs when there is none.
CREATE OR REPLACE FUNCTION pgque.read_ahead_ticks(i_sub pgque.subscription, i_consumer text, i_batch_id bigint,
    i_window_events bigint, OUT from_tick bigint, OUT to_tick bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    w record := pgque.read_ahead_ticks_after(i_sub, i_consumer, i_batch_id, NULL, i_window_events);
BEGIN
    from_tick := w.from_tick;
    to_tick := w.to_tick;
END
$$;

-- Internal: read_ahead_ticks from tick i_after_tick on rather than from the open batch's end: for
-- a reader that has read ahead the batch after the open one (up to i_after_tick) and reads the one
-- after that too. The events of a window are fixed once its later tick exists, so reading it
-- early is safe; opening it (open_read_ahead_partitioned) still waits until the slot stands at
-- its first tick. NULL i_after_tick: the open batch's end.
CREATE OR REPLACE FUNCTION pgque.read_ahead_ticks_after(i_sub pgque.subscription, i_consumer text, i_batch_id bigint,
    i_after_tick bigint, i_window_events bigint, OUT from_tick bigint, OUT to_tick bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_from bigint;
    v_last pgque.tick;
    v_next pgque.tick;
BEGIN
    IF i_window_events < 1 THEN
        RAISE EXCEPTION 'pgque read-ahead: window_events must be >= 1 or NULL, got %', i_window_events
            USING ERRCODE = '22023';
    END IF;
    IF i_sub.sub_batch IS DISTINCT FROM i_batch_id THEN
        RETURN; -- not the open batch (any more), or a batch is open where none was named
    END IF;
    -- NULL i_batch_id: the slot has no open batch, and the window starts where it stands.
    v_from := CASE WHEN i_batch_id IS NULL THEN i_sub.sub_last_tick ELSE i_sub.sub_next_tick END;
    IF i_after_tick < v_from THEN
        RAISE EXCEPTION 'pgque.read_ahead_after_query: tick % is before the end of open batch % (tick %)',
            i_after_tick, i_batch_id, v_from USING ERRCODE = '22023';
    END IF;
    SELECT * INTO v_last FROM pgque.tick
     WHERE tick_queue = i_sub.sub_queue AND tick_id = coalesce(i_after_tick, v_from);
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_next := pgque.batch_end_tick(v_last, NULL, NULL, NULL, pgque.hook_batch_end_cap(i_sub.sub_queue, i_consumer),
                                   i_window_events);
    IF v_next.tick_id IS NULL THEN
        RETURN;
    END IF;
    from_tick := v_last.tick_id;
    to_tick := v_next.tick_id;
END
$$;

-- read_ahead_window and the first i_max events of that batch in one call, for a batch expected
-- to fit one page: the messages of the batch, each row with the batch's ticks (for
-- open_read_ahead_partitioned). No row when there is nothing to read ahead, or the batch holds no
-- event of the slot. The rest of a batch larger than the page is read once it is open
-- (read_batch_partitioned).
CREATE OR REPLACE FUNCTION pgque.read_ahead_page(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_window_events bigint, i_max int)
RETURNS TABLE (msg_id bigint, batch_id bigint, type text, payload text, retry_count int4, created_at timestamptz,
               extra1 text, extra2 text, extra3 text, extra4 text, from_tick bigint, to_tick bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    p record;
BEGIN
    IF i_max IS NULL OR i_max < 1 THEN
        RAISE EXCEPTION 'pgque.read_ahead_page: max must be >= 1, got %', i_max USING ERRCODE = '22023';
    END IF;
    p := pgque.read_ahead_plan(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, i_window_events);
    IF p.batch_id IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE pgque.window_scan_sql(p.queue, p.sub_id, p.snap1, p.snap2, NULL, i_max, i_slot, i_n,
                                               p.batch_id, ARRAY[p.from_tick, p.to_tick]);
END
$$;

-- Internal: what reading ahead of the slot's open batch i_batch_id reads -- the next batch's id
-- (drawn now), its ticks and their snapshots, the queue and the subscription -- after checking
-- the lease without renewing it; all NULL when there is nothing to read ahead (read_ahead_ticks).
CREATE OR REPLACE FUNCTION pgque.read_ahead_plan(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_window_events bigint,
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT queue pgque.queue, OUT sub_id int4,
    OUT snap1 pg_snapshot, OUT snap2 pg_snapshot)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    p record := pgque.read_ahead_plan_after(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, NULL,
                                            i_window_events);
BEGIN
    batch_id := p.batch_id;
    from_tick := p.from_tick;
    to_tick := p.to_tick;
    queue := p.queue;
    sub_id := p.sub_id;
    snap1 := p.snap1;
    snap2 := p.snap2;
END
$$;

-- Internal: read_ahead_plan for the window after tick i_after_tick (see read_ahead_ticks_after).
CREATE OR REPLACE FUNCTION pgque.read_ahead_plan_after(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_after_tick bigint, i_window_events bigint,
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT queue pgque.queue, OUT sub_id int4,
    OUT snap1 pg_snapshot, OUT snap2 pg_snapshot)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_check_lease(i_queue, i_consumer, i_slot, i_n, i_worker, false);
    w record := pgque.read_ahead_ticks_after(s, i_consumer, i_batch_id, i_after_tick, i_window_events);
BEGIN
    -- A slot with a blocked key opens nothing read ahead (open_read_ahead_partitioned): no use reading it.
    IF w.to_tick IS NULL OR pgque.slot_blocked(s) THEN
        RETURN;
    END IF;
    SELECT * INTO queue FROM pgque.queue q WHERE q.queue_id = s.sub_queue;
    SELECT tick_snapshot INTO snap1 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = w.from_tick;
    SELECT tick_snapshot INTO snap2 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = w.to_tick;
    batch_id := nextval('pgque.batch_id_seq');
    from_tick := w.from_tick;
    to_tick := w.to_tick;
    sub_id := s.sub_id;
END
$$;

-- (addition) read_ahead_page without the set-returning function: the batch's id and ticks, and
-- two queries over its events of the slot as messages of that batch, for the caller to run
-- itself. query: the first i_max of them (NULL: all) in event order. any_order_query: at most
-- i_max of them in no set order; fewer than i_max are all of them, which the reader puts in order
-- itself, else query says which come first. A reader may select from the queue's event tables
-- (pgque_reader can); a set-returning function copies every row it returns once more, and a sort
-- on the server copies every row too: for ~1 KB events each costs about as much as the scan.
-- Which events the queries find is fixed once the later tick exists, so they may run at any time
-- after this call. No row when there is nothing to read ahead.
CREATE OR REPLACE FUNCTION pgque.read_ahead_query(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_window_events bigint, i_max int,
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT query text, OUT any_order_query text)
RETURNS SETOF record
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
        SELECT r.batch_id, r.from_tick, r.to_tick, r.query, r.any_order_query
          FROM pgque.read_ahead_slots_query(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id,
                                            i_window_events, i_max, NULL) r;
END
$$;

-- (addition) read_ahead_query for a reader that leases several slots of the consumer: also
-- slots_query, the same window's events of i_slot and of every slot in i_slots, in no set order,
-- with pgque.message's columns (all as messages of the batch named here) and the slot each event
-- belongs to, at most i_max for each slot asked for (i_max NULL: all). A reader whose slots stand
-- at the same tick reads their next batches in one scan of the window this way, rather than one
-- scan each: a scan reads every event of the window to find the slot's, so N slots read it N
-- times. Only i_slot's lease is checked: the rows of the other slots are of use to their reader
-- only once their own read_ahead_query names the same ticks, which checks theirs. slots_query is
-- NULL when i_slots is NULL or empty, or with one slot. 22023 for a slot in i_slots out of range.
-- NULL i_batch_id reads a slot that has no open batch (a new lease, say): the window from where
-- it stands, which open_read_ahead_partitioned then opens; no row when it has an open batch. So
-- the slots of a reader that start together read their first batches in one scan too.
CREATE OR REPLACE FUNCTION pgque.read_ahead_slots_query(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_window_events bigint, i_max int, i_slots int[],
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT query text, OUT any_order_query text,
    OUT slots_query text)
RETURNS SETOF record
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
        SELECT * FROM pgque.read_ahead_queries(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, NULL,
                                               i_window_events, i_max, i_slots);
END
$$;

-- (addition) read_ahead_slots_query for the batch after the one read ahead: the window from tick
-- i_after_tick (the to_tick a read-ahead named) on, while batch i_batch_id is still the slot's
-- open batch. A reader that streams large batches reads two ahead this way, so the read of a
-- batch overlaps the sending of the one before it, not only of its own predecessor's tail. The
-- window's events are fixed once its later tick exists; open_read_ahead_partitioned opens it only
-- once the slot stands at i_after_tick (and refuses it otherwise). NULL i_after_tick is
-- read_ahead_slots_query. No row when i_batch_id is not the open batch or no window follows;
-- 22023 for a tick before the open batch's end.
CREATE OR REPLACE FUNCTION pgque.read_ahead_after_query(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_after_tick bigint, i_window_events bigint, i_max int, i_slots int[],
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT query text, OUT any_order_query text,
    OUT slots_query text)
RETURNS SETOF record
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
        SELECT * FROM pgque.read_ahead_queries(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, i_after_tick,
                                               i_window_events, i_max, i_slots);
END
$$;

-- Internal: read_ahead_slots_query and read_ahead_after_query (NULL i_after_tick: the former).
CREATE OR REPLACE FUNCTION pgque.read_ahead_queries(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_after_tick bigint, i_window_events bigint, i_max int, i_slots int[],
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT query text, OUT any_order_query text,
    OUT slots_query text)
RETURNS SETOF record
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    p record;
    v_slots int[];
    v_subs int4[];
BEGIN
    IF i_max < 1 THEN
        RAISE EXCEPTION 'pgque.read_ahead_query: max must be >= 1 or NULL, got %', i_max USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(i_slots) k WHERE k IS NULL OR k < 0 OR k >= i_n) THEN
        RAISE EXCEPTION 'pgque.read_ahead_slots_query: slots must be between 0 and %, got %', i_n - 1, i_slots
            USING ERRCODE = '22023';
    END IF;
    p := pgque.read_ahead_plan_after(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, i_after_tick,
                                     i_window_events);
    IF p.batch_id IS NULL THEN
        RETURN;
    END IF;
    batch_id := p.batch_id;
    from_tick := p.from_tick;
    to_tick := p.to_tick;
    query := pgque.window_scan_sql(p.queue, p.sub_id, p.snap1, p.snap2, NULL, i_max, i_slot, i_n, p.batch_id);
    any_order_query := pgque.window_scan_rows(p.queue, p.sub_id, p.snap1, p.snap2, NULL, i_slot, i_n, p.batch_id,
                                              NULL)
                       || CASE WHEN i_max IS NULL THEN '' ELSE ' LIMIT ' || i_max END;
    v_slots := ARRAY(SELECT DISTINCT k FROM unnest(array_append(i_slots, i_slot)) k ORDER BY k);
    IF i_n > 1 AND cardinality(v_slots) > 1 THEN
        -- Each slot is a subscription of its own, and a retried event comes back owned by its slot's.
        v_subs := ARRAY(SELECT sub.sub_id FROM unnest(v_slots) WITH ORDINALITY AS k(slot, i)
                          JOIN pgque.consumer c ON c.co_name = pgque.slot_consumer_name(i_consumer, k.slot, i_n)
                          JOIN pgque.subscription sub ON sub.sub_consumer = c.co_id AND sub.sub_queue = (p.queue).queue_id
                         ORDER BY k.i);
        IF cardinality(v_subs) = cardinality(v_slots) THEN
            slots_query := pgque.window_scan_select(p.queue, p.snap1, p.snap2,
                    pgque.window_message_columns(p.batch_id) || format(', pgque.slot_of(e.ev_extra1, %s) AS slot', i_n),
                    format('pgque.slot_of(e.ev_extra1, %1$s) = ANY (%2$L::int[]) AND (e.ev_owner IS NULL '
                           'OR e.ev_owner = (%3$L::int4[])[array_position(%2$L::int[], pgque.slot_of(e.ev_extra1, %1$s))])',
                           i_n, v_slots, v_subs))
                           || CASE WHEN i_max IS NULL THEN '' ELSE ' LIMIT ' || i_max::bigint * cardinality(v_slots) END;
        END IF;
    END IF;
    RETURN NEXT;
END
$$;

-- The events of the slot between ticks i_from_tick and i_to_tick, as messages of batch
-- i_batch_id (see read_ahead_window); nothing is opened.
CREATE OR REPLACE FUNCTION pgque.read_ahead_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_from_tick bigint, i_to_tick bigint)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
    q pgque.queue;
    v_snap1 pg_snapshot;
    v_snap2 pg_snapshot;
BEGIN
    IF i_batch_id IS NULL OR i_from_tick IS NULL OR i_to_tick IS NULL OR i_to_tick <= i_from_tick THEN
        RAISE EXCEPTION 'pgque.read_ahead_partitioned: a batch id and two ticks in order are required, got %, % and %',
            i_batch_id, i_from_tick, i_to_tick USING ERRCODE = '22023';
    END IF;
    s := pgque.slot_check_lease(i_queue, i_consumer, i_slot, i_n, i_worker, false);
    SELECT * INTO q FROM pgque.queue WHERE queue_id = s.sub_queue;
    SELECT tick_snapshot INTO v_snap1 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = i_from_tick;
    SELECT tick_snapshot INTO v_snap2 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = i_to_tick;
    IF v_snap1 IS NULL OR v_snap2 IS NULL THEN
        RAISE EXCEPTION 'pgque.read_ahead_partitioned: no ticks % and % on queue %', i_from_tick, i_to_tick, i_queue
            USING ERRCODE = '22023';
    END IF;
    RETURN QUERY EXECUTE pgque.window_scan_sql(q, s.sub_id, v_snap1, v_snap2, NULL, NULL, i_slot, i_n, i_batch_id);
END
$$;

-- Opens the slot's batch read ahead: batch i_batch_id from i_from_tick to i_to_tick, if the
-- slot stands at i_from_tick with no open batch (its previous batch acked), the lease is the
-- caller's (renewed) and a resize does not seal the queue before i_to_tick. True when the
-- slot's open batch is that batch (also when an earlier call opened it and its answer was lost);
-- false, changing nothing, otherwise: the reader then drops what it read ahead and receives.
-- The batch id must be one the engine has handed out (read_ahead_window and the queries draw
-- them): an id not drawn yet would collide with the batch the sequence gives another consumer
-- next, and an id some other batch has taken makes this call return false.
CREATE OR REPLACE FUNCTION pgque.open_read_ahead_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_from_tick bigint, i_to_tick bigint)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NOT NULL THEN
        RETURN s.sub_batch = i_batch_id AND s.sub_last_tick = i_from_tick AND s.sub_next_tick = i_to_tick;
    END IF;
    IF i_batch_id IS NULL OR i_batch_id < 1 OR i_batch_id > pgque.seq_last_value('pgque.batch_id_seq') THEN
        RAISE EXCEPTION 'batch % was not handed out by the engine; read ahead with read_ahead_window() or a read-ahead query',
            i_batch_id USING ERRCODE = '22023';
    END IF;
    -- A blocked key's events must be set aside as its batch opens, which only the receive does.
    IF s.sub_last_tick IS DISTINCT FROM i_from_tick OR i_to_tick IS NULL OR i_to_tick <= i_from_tick
       OR pgque.slot_blocked(s)
       OR i_to_tick > pgque.hook_batch_end_cap(s.sub_queue, i_consumer)
       OR NOT EXISTS (SELECT 1 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = i_to_tick)
       OR EXISTS (SELECT 1 FROM pgque.subscription WHERE sub_batch = i_batch_id) THEN
        RETURN false;
    END IF;
    UPDATE pgque.subscription
       SET sub_batch = i_batch_id, sub_next_tick = i_to_tick, sub_active = now()
     WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
    RETURN true;
END
$$;

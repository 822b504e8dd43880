--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: the pause failure policy. A worker that cannot process an event of key K pauses
-- it (pause_partitioned) instead of nacking it: the event goes to the retry queue as a nack sends
-- it, and K is blocked on its slot until that event is acked (after its redelivery) or
-- dead-lettered. Meanwhile the slot hands out no later event of K: they are set aside, in order and
-- as they are (no retry counted), and every other key of the slot flows. Once K is released, its
-- set-aside events go out with the slot's next batch, before any newer event of K. Reader role.
--
-- The state is one row per blocked key (pgque.partition_block), the events set aside
-- (pgque.partition_set_aside) and, while an open batch hands a released key's events out, one row
-- per such key (pgque.partition_handout); a slot that never pauses has none and pays an index probe
-- or two per batch. Which events a batch holds is decided when it is opened: a window's events of a blocked
-- key are set aside then, once; reading the batch again leaves them out (hook_slot_scan_sql) and
-- adds the set-aside events handed out with it. A batch read ahead cannot do that, so a slot with a
-- blocked key reads nothing ahead and opens nothing read ahead (59_partition_read_ahead.sql); its
-- read-ahead queries, which the reader runs itself, never filter, and are right whenever the slot
-- has no blocked key.
--
-- Layer: mode, partition (README.md). Calls the core, 55_partition.sql and 57_partition_lease.sql.
-- Fills hook_slot_scan_sql (50_batch.sql) and hook_slot_forget (45_subscription.sql).
-- 58_partition_read.sql, 59_partition_read_ahead.sql and 60_resize.sql call it where slots'
-- batches are opened, closed and re-homed.

-- One row per blocked key of a slot subscription. pb_head: the event that failed (its redelivery
-- is owned by the slot, ev_owner = sub_id). pb_created_in: the batch it failed in (the key's
-- events after it in that batch were set aside then); pb_paused_in: the batch of its latest
-- failure; pb_head_batch: the open batch that holds its redelivery. pb_released: the head was acked
-- or dead-lettered; the key's set-aside events (pb_set_aside of them) go out with the slot's next
-- batch.
CREATE TABLE IF NOT EXISTS pgque.partition_block (
    pb_queue      int4 NOT NULL,
    pb_consumer   int4 NOT NULL,
    pb_key        text NOT NULL,
    pb_head       bigint NOT NULL,
    pb_since      timestamptz NOT NULL,
    pb_reason     text,
    pb_retries    int4 NOT NULL,
    pb_created_in bigint NOT NULL,
    pb_paused_in  bigint NOT NULL,
    pb_head_batch bigint,
    pb_released   boolean NOT NULL DEFAULT false,
    pb_set_aside  bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (pb_queue, pb_consumer, pb_key)
);

-- The events of blocked keys, set aside: copies of their event rows (the event tables rotate away),
-- owned by the slot subscription, in event-id order per key. Only keyed events are set aside.
--
-- The three tables of this file have no foreign key to pgque.subscription: creating one would lock
-- the subscriptions against every read and ack for the rest of an upgrade, and its check, one query
-- per event, was two fifths of what setting an event aside cost. Their rows go with their slot's
-- subscription through hook_slot_forget.
CREATE TABLE IF NOT EXISTS pgque.partition_set_aside (
    sa_queue    int4 NOT NULL,
    sa_consumer int4 NOT NULL,
    LIKE pgque.event_template,
    PRIMARY KEY (sa_queue, sa_consumer, ev_extra1, ev_id)
);

-- A released key whose set-aside events open batch ph_batch hands out: those up to event id
-- ph_through. Acking the batch deletes them, and the row. Marking the events themselves would
-- rewrite every one of them once more.
CREATE TABLE IF NOT EXISTS pgque.partition_handout (
    ph_queue    int4 NOT NULL,
    ph_consumer int4 NOT NULL,
    ph_key      text NOT NULL,
    ph_batch    bigint NOT NULL,
    ph_through  bigint NOT NULL,
    PRIMARY KEY (ph_queue, ph_consumer, ph_key)
);
CALL pg_temp.pgque_ddl_if(to_regclass('pgque.partition_handout_batch_idx') IS NULL,
    'CREATE INDEX partition_handout_batch_idx ON pgque.partition_handout (ph_batch)');

-- Fills hook_slot_forget (45_subscription.sql): a slot unregistered drops its blocked keys, its
-- hand-outs and its set-aside events.
CREATE OR REPLACE FUNCTION pgque.hook_slot_forget(i_sub pgque.subscription)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    DELETE FROM pgque.partition_block WHERE pb_queue = i_sub.sub_queue AND pb_consumer = i_sub.sub_consumer;
    DELETE FROM pgque.partition_handout WHERE ph_queue = i_sub.sub_queue AND ph_consumer = i_sub.sub_consumer;
    DELETE FROM pgque.partition_set_aside WHERE sa_queue = i_sub.sub_queue AND sa_consumer = i_sub.sub_consumer;
END
$$;

-- Internal: whether slot subscription i_sub has a blocked key (released ones included).
CREATE OR REPLACE FUNCTION pgque.slot_blocked(i_sub pgque.subscription)
RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM pgque.partition_block
                    WHERE pb_queue = i_sub.sub_queue AND pb_consumer = i_sub.sub_consumer);
END
$$;

-- Fills hook_slot_scan_sql (50_batch.sql): the query over open batch i_batch_id of a slot. With no
-- blocked key and nothing set aside handed out with the batch, the core's window query. Otherwise
-- the window's events of blocked keys are left out (they were set aside when the batch opened, or
-- when their key was paused in it), except a blocked key's redelivered head in the batch that holds
-- it; the set-aside events handed out with the batch are added. All in event-id order.
CREATE OR REPLACE FUNCTION pgque.hook_slot_scan_sql(i_q pgque.queue, i_sub pgque.subscription, i_snap1 pg_snapshot,
    i_snap2 pg_snapshot, i_batch_id bigint, i_after_ev_id bigint, i_limit int, i_slot int, i_n int, i_messages boolean)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
DECLARE
    v_columns text;
    v_filter text;
    v_keys text[];
    v_heads bigint[];
    b record;
BEGIN
    IF NOT pgque.slot_blocked(i_sub)
       AND NOT EXISTS (SELECT 1 FROM pgque.partition_handout WHERE ph_batch = i_batch_id) THEN
        RETURN pgque.window_scan_sql(i_q, i_sub.sub_id, i_snap1, i_snap2, i_after_ev_id, i_limit, i_slot, i_n,
                                     CASE WHEN i_messages THEN i_batch_id END);
    END IF;
    v_columns := CASE WHEN i_messages THEN pgque.window_message_columns(i_batch_id)
                      ELSE 'e.ev_id, e.ev_time, e.ev_txid, e.ev_retry, e.ev_type, e.ev_data, '
                           'e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4' END;
    v_filter := format('(e.ev_owner IS NULL OR e.ev_owner = %s)', i_sub.sub_id)
                || CASE WHEN i_after_ev_id IS NULL THEN '' ELSE format(' AND e.ev_id > %s', i_after_ev_id) END
                || CASE WHEN i_n > 1 THEN format(' AND pgque.slot_of(e.ev_extra1, %s) = %s', i_n, i_slot) ELSE '' END;
    FOR b IN SELECT * FROM pgque.partition_block
              WHERE pb_queue = i_sub.sub_queue AND pb_consumer = i_sub.sub_consumer ORDER BY pb_key LOOP
        IF b.pb_created_in = i_batch_id THEN
            -- Paused in this batch: its events before the head were handed out, the rest set aside.
            v_filter := v_filter || format(' AND (e.ev_extra1 IS DISTINCT FROM %L OR e.ev_id < %s)', b.pb_key, b.pb_head);
        ELSE
            v_keys := v_keys || b.pb_key;
            IF b.pb_head_batch = i_batch_id THEN
                v_heads := v_heads || b.pb_head;
            END IF;
        END IF;
    END LOOP;
    IF v_keys IS NOT NULL THEN
        -- A head's id is its own event's: no other key's event has it.
        v_filter := v_filter || format(' AND (e.ev_extra1 IS NULL OR e.ev_extra1 <> ALL (%L::text[])'
                                       ' OR (e.ev_owner = %s AND e.ev_id = ANY (%L::bigint[])))',
                                       v_keys, i_sub.sub_id, coalesce(v_heads, '{}'));
    END IF;
    -- Each key's set-aside events in event-id order from its own index range, at most a page of
    -- them: a page never reads the rest of a large hand-out.
    RETURN pgque.window_scan_select(i_q, i_snap1, i_snap2, v_columns, v_filter)
           || coalesce((SELECT string_agg(format(
                  ' UNION ALL (SELECT %s FROM pgque.partition_set_aside e WHERE e.sa_queue = %s AND e.sa_consumer = %s'
                  ' AND e.ev_extra1 = %L AND e.ev_id <= %s%s ORDER BY e.ev_id%s)', v_columns, i_sub.sub_queue,
                  i_sub.sub_consumer, h.ph_key, h.ph_through,
                  CASE WHEN i_after_ev_id IS NULL THEN '' ELSE format(' AND e.ev_id > %s', i_after_ev_id) END,
                  CASE WHEN i_limit IS NULL THEN '' ELSE ' LIMIT ' || i_limit END), '' ORDER BY h.ph_key)
                  FROM pgque.partition_handout h
                 WHERE h.ph_queue = i_sub.sub_queue AND h.ph_consumer = i_sub.sub_consumer
                   AND h.ph_batch = i_batch_id), '')
           || ' ORDER BY 1' || CASE WHEN i_limit IS NULL THEN '' ELSE ' LIMIT ' || i_limit END;
END
$$;

-- Internal: the query text over the events of open batch i_batch_id of slot subscription i_sub
-- that i_filter selects, as event rows with their owner (to copy them); from the window alone.
CREATE OR REPLACE FUNCTION pgque.slot_window_rows(i_sub pgque.subscription, i_batch_id bigint, i_filter text)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v record;
BEGIN
    SELECT q AS queue, t1.tick_snapshot AS snap1, t2.tick_snapshot AS snap2
      INTO v
      FROM pgque.subscription sub
      JOIN pgque.queue q ON q.queue_id = sub.sub_queue
      JOIN pgque.tick t1 ON t1.tick_queue = sub.sub_queue AND t1.tick_id = sub.sub_last_tick
      JOIN pgque.tick t2 ON t2.tick_queue = sub.sub_queue AND t2.tick_id = sub.sub_next_tick
     WHERE sub.sub_queue = i_sub.sub_queue AND sub.sub_consumer = i_sub.sub_consumer AND sub.sub_batch = i_batch_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    RETURN pgque.window_scan_select(v.queue, v.snap1, v.snap2,
               'e.ev_id, e.ev_time, e.ev_txid, e.ev_owner, e.ev_retry, e.ev_type, e.ev_data, '
               'e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4',
               format('(e.ev_owner IS NULL OR e.ev_owner = %s) AND ', i_sub.sub_id) || i_filter);
END
$$;

-- Internal: what opening batch i_batch_id of slot subscription i_sub does for its blocked keys.
-- Released keys: their set-aside events are handed out with this batch and the key flows again
-- (its events of this window go out as they are, after the set-aside ones). Blocked keys: their
-- events of this window are set aside, except a head's redelivery, which the batch hands out (and
-- records, so that the ack can release the key). One scan of the window, only while a key is
-- blocked; nothing when none is.
CREATE OR REPLACE FUNCTION pgque.slot_block_open(i_sub pgque.subscription, i_batch_id bigint)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
DECLARE
    v_keys text[];
    v_heads bigint[];
BEGIN
    IF NOT pgque.slot_blocked(i_sub) THEN
        RETURN;
    END IF;
    WITH released AS (
        DELETE FROM pgque.partition_block
         WHERE pb_queue = i_sub.sub_queue AND pb_consumer = i_sub.sub_consumer AND pb_released
        RETURNING pb_key)
    INSERT INTO pgque.partition_handout (ph_queue, ph_consumer, ph_key, ph_batch, ph_through)
    SELECT i_sub.sub_queue, i_sub.sub_consumer, r.pb_key, i_batch_id, m.through
      FROM released r
     CROSS JOIN LATERAL (SELECT max(sa.ev_id) AS through FROM pgque.partition_set_aside sa
                          WHERE sa.sa_queue = i_sub.sub_queue AND sa.sa_consumer = i_sub.sub_consumer
                            AND sa.ev_extra1 = r.pb_key) m
     WHERE m.through IS NOT NULL;
    SELECT array_agg(pb_key ORDER BY pb_key), array_agg(pb_head ORDER BY pb_key) INTO v_keys, v_heads
      FROM pgque.partition_block
     WHERE pb_queue = i_sub.sub_queue AND pb_consumer = i_sub.sub_consumer;
    IF v_keys IS NULL THEN
        RETURN;
    END IF;
    EXECUTE format(
        'WITH w AS MATERIALIZED (%s),
              parked AS (
                  INSERT INTO pgque.partition_set_aside (sa_queue, sa_consumer, ev_id, ev_time, ev_txid, ev_owner,
                                                         ev_retry, ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
                  SELECT $1, $2, w.* FROM w WHERE NOT (w.ev_owner IS NOT DISTINCT FROM $3 AND w.ev_id = ANY ($5))
                  ON CONFLICT DO NOTHING
                  RETURNING ev_extra1),
              counted AS (SELECT ev_extra1 AS k, count(*) AS n FROM parked GROUP BY 1),
              heads AS (SELECT DISTINCT w.ev_extra1 AS k FROM w WHERE w.ev_owner = $3 AND w.ev_id = ANY ($5))
         UPDATE pgque.partition_block pb
            SET pb_set_aside = pb.pb_set_aside + coalesce((SELECT c.n FROM counted c WHERE c.k = pb.pb_key), 0),
                pb_head_batch = CASE WHEN pb.pb_key IN (SELECT h.k FROM heads h) THEN $6 ELSE pb.pb_head_batch END
          WHERE pb.pb_queue = $1 AND pb.pb_consumer = $2',
        pgque.slot_window_rows(i_sub, i_batch_id, 'e.ev_extra1 = ANY ($4)'))
    USING i_sub.sub_queue, i_sub.sub_consumer, i_sub.sub_id, v_keys, v_heads, i_batch_id;
END
$$;

-- Internal: what acking batch i_batch_id of slot subscription i_sub does for its blocked keys: the
-- set-aside events it handed out are done; a key whose head it handed out is released, unless the
-- head was nacked back into the retry queue; a released key with nothing set aside is forgotten.
CREATE OR REPLACE FUNCTION pgque.slot_block_close(i_sub pgque.subscription, i_batch_id bigint)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
DECLARE
    v_resumed bigint;
    h record;
BEGIN
    -- Key by key, each an index range: a join of the hand-outs with the set-aside events, planned
    -- once for the session, may read every event set aside.
    FOR h IN DELETE FROM pgque.partition_handout
              WHERE ph_batch = i_batch_id AND ph_queue = i_sub.sub_queue AND ph_consumer = i_sub.sub_consumer
             RETURNING ph_key, ph_through LOOP
        DELETE FROM pgque.partition_set_aside
         WHERE sa_queue = i_sub.sub_queue AND sa_consumer = i_sub.sub_consumer AND ev_extra1 = h.ph_key
           AND ev_id <= h.ph_through;
    END LOOP;
    IF NOT pgque.slot_blocked(i_sub) THEN
        RETURN;
    END IF;
    WITH closed AS (
        UPDATE pgque.partition_block pb
           SET pb_head_batch = NULL,
               pb_released = NOT EXISTS (SELECT 1 FROM pgque.retry_queue r
                                          WHERE r.ev_owner = i_sub.sub_id AND r.ev_id = pb.pb_head)
         WHERE pb.pb_queue = i_sub.sub_queue AND pb.pb_consumer = i_sub.sub_consumer AND pb.pb_head_batch = i_batch_id
        RETURNING pb.pb_released AND pb.pb_set_aside > 0 AS resumes)
    SELECT count(*) INTO v_resumed FROM closed WHERE resumes;
    DELETE FROM pgque.partition_block
     WHERE pb_queue = i_sub.sub_queue AND pb_consumer = i_sub.sub_consumer AND pb_released AND pb_set_aside = 0;
    IF v_resumed > 0 THEN
        PERFORM pgque.slot_block_wake(i_sub.sub_queue);
    END IF;
END
$$;

-- Internal: a released key's set-aside events go out with the slot's next batch, and only a tick
-- opens one: this counts one event for the queue's ticker (as the retry mover counts the retries
-- it puts back), so that a queue with nothing else to deliver still gets that tick.
CREATE OR REPLACE FUNCTION pgque.slot_block_wake(i_queue_id int4)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM nextval(pgque.event_seq_name(i_queue_id)::regclass);
END
$$;

-- Internal: acks batch i_batch_id of slot subscription i_sub (its lease checked by the caller).
CREATE OR REPLACE FUNCTION pgque.slot_batch_close(i_sub pgque.subscription, i_batch_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.slot_block_close(i_sub, i_batch_id);
    RETURN pgque.batch_close(i_batch_id);
END
$$;

-- (addition) The pause failure policy: as nack_partitioned, and the event's key is blocked on the
-- slot until this event is acked (after its redelivery) or dead-lettered. The key's later events of
-- the open batch are set aside now, those of later batches as they come: the reader must not
-- process the key's events after this one in the batch it holds. True: the key is blocked. False:
-- the event had been retried max_retries times and went to the dead letters, as a nack sends it,
-- and the key is not blocked (or no longer: its set-aside events come with the slot's next batch).
-- Repeating the call in the same batch repeats the answer. An event without a partition key has no
-- key to block (22023).
CREATE OR REPLACE FUNCTION pgque.pause_partitioned(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text,
    i_msg pgque.message, i_retry_after interval DEFAULT '60 seconds', i_reason text DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
    blk pgque.partition_block;
    e record;
    v_max int4;
    v_returned bigint;
    v_parked bigint;
    v_blocked boolean;
BEGIN
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % has no open batch to pause an event of', i_slot, i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    -- A repeated call, its event no longer in the batch: the same answer.
    SELECT * INTO blk FROM pgque.partition_block
     WHERE pb_queue = s.sub_queue AND pb_consumer = s.sub_consumer AND pb_head = (i_msg).msg_id
       AND pb_paused_in = s.sub_batch;
    IF FOUND THEN
        RETURN NOT blk.pb_released;
    END IF;
    SELECT * INTO e FROM pgque.batch_event(s.sub_batch, (i_msg).msg_id, i_slot, i_n);
    IF e.ev_extra1 IS NULL THEN
        RAISE EXCEPTION 'event % has no partition key: there is no key to block', e.ev_id USING ERRCODE = '22023',
            HINT = 'Nack it (pgque.nack_partitioned) or dead-letter it (pgque.dead_letter_partitioned).';
    END IF;
    SELECT * INTO blk FROM pgque.partition_block
     WHERE pb_queue = s.sub_queue AND pb_consumer = s.sub_consumer AND pb_key = e.ev_extra1;
    v_blocked := FOUND;
    IF v_blocked AND blk.pb_head <> e.ev_id THEN
        -- An event of the key before the one paused in this batch, which a read of the batch
        -- hands out again after a crash: the key waits for its head first.
        RAISE EXCEPTION 'key % is blocked on slot % of consumer % on queue % by event %', e.ev_extra1, i_slot,
            i_consumer, i_queue, blk.pb_head USING ERRCODE = '55000';
    END IF;
    SELECT coalesce(queue_max_retries, 5) INTO v_max FROM pgque.queue WHERE queue_id = s.sub_queue;
    IF coalesce(e.ev_retry, 0) >= v_max THEN
        PERFORM pgque.dead_letter_event(s, s.sub_batch, e.ev_id, coalesce(i_reason, 'max retries exceeded'), i_slot, i_n);
        -- A blocked key's head failed for the last time: the key is released.
        UPDATE pgque.partition_block SET pb_released = true, pb_head_batch = NULL, pb_paused_in = s.sub_batch,
                                         pb_reason = coalesce(i_reason, pb_reason)
         WHERE pb_queue = s.sub_queue AND pb_consumer = s.sub_consumer AND pb_key = e.ev_extra1;
        IF v_blocked AND blk.pb_set_aside > 0 THEN
            PERFORM pgque.slot_block_wake(s.sub_queue);
        END IF;
        RETURN false;
    END IF;
    PERFORM pgque.retry_event(s, s.sub_batch, e.ev_id,
        now() + greatest(coalesce(i_retry_after, interval '60 seconds'), interval '0'), i_slot, i_n);
    IF v_blocked THEN
        -- The head's redelivery failed again; its key's other events of this batch were set aside
        -- when the batch opened.
        UPDATE pgque.partition_block
           SET pb_head_batch = NULL, pb_paused_in = s.sub_batch, pb_retries = coalesce(e.ev_retry, 0) + 1,
               pb_reason = coalesce(i_reason, pb_reason)
         WHERE pb_queue = s.sub_queue AND pb_consumer = s.sub_consumer AND pb_key = e.ev_extra1;
        RETURN true;
    END IF;
    -- The key's events after this one in the batch: those handed out from the set-aside stay there
    -- (the hand-out ends before this one), the window's are set aside.
    UPDATE pgque.partition_handout SET ph_through = e.ev_id - 1
     WHERE ph_queue = s.sub_queue AND ph_consumer = s.sub_consumer AND ph_key = e.ev_extra1 AND ph_batch = s.sub_batch
       AND ph_through >= e.ev_id;
    DELETE FROM pgque.partition_set_aside
     WHERE sa_queue = s.sub_queue AND sa_consumer = s.sub_consumer AND ev_extra1 = e.ev_extra1 AND ev_id = e.ev_id;
    SELECT count(*) INTO v_returned FROM pgque.partition_set_aside
     WHERE sa_queue = s.sub_queue AND sa_consumer = s.sub_consumer AND ev_extra1 = e.ev_extra1 AND ev_id > e.ev_id;
    EXECUTE format(
        'WITH parked AS (
             INSERT INTO pgque.partition_set_aside (sa_queue, sa_consumer, ev_id, ev_time, ev_txid, ev_owner,
                                                    ev_retry, ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
             SELECT $1, $2, w.* FROM (%s) w
             ON CONFLICT DO NOTHING
             RETURNING 1)
         SELECT count(*) FROM parked',
        pgque.slot_window_rows(s, s.sub_batch, 'e.ev_extra1 = $3 AND e.ev_id > $4'))
    INTO v_parked
    USING s.sub_queue, s.sub_consumer, e.ev_extra1, e.ev_id;
    INSERT INTO pgque.partition_block (pb_queue, pb_consumer, pb_key, pb_head, pb_since, pb_reason, pb_retries,
                                       pb_created_in, pb_paused_in, pb_set_aside)
    VALUES (s.sub_queue, s.sub_consumer, e.ev_extra1, e.ev_id, now(), i_reason, coalesce(e.ev_retry, 0) + 1,
            s.sub_batch, s.sub_batch, v_returned + v_parked);
    RETURN true;
END
$$;

-- Internal: the slot subscription that key i_key of partitioned consumer i_consumer belongs to,
-- locked as a read of the slot locks it (so its worker's reads and acks wait), and the key's block,
-- or 22023 when the key is not blocked.
CREATE OR REPLACE FUNCTION pgque.slot_block_lock(i_queue text, i_consumer text, i_key text,
    OUT sub pgque.subscription, OUT block pgque.partition_block)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    v_n int4 := pgque.partition_pinned_n(q, i_consumer);
BEGIN
    IF i_key IS NULL THEN
        RAISE EXCEPTION 'a partition key is required' USING ERRCODE = '22023';
    END IF;
    sub := pgque.sub_lock(q.queue_id, pgque.slot_consumer_name(i_consumer, pgque.slot_of(i_key, v_n), v_n));
    SELECT * INTO block FROM pgque.partition_block
     WHERE pb_queue = q.queue_id AND pb_consumer = sub.sub_consumer AND pb_key = i_key AND NOT pb_released;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'key % of consumer % on queue % is not blocked', i_key, i_consumer, i_queue USING ERRCODE = '22023',
            HINT = 'pgque.blocked_keys() lists the blocked keys.';
    END IF;
END
$$;

-- (addition) The blocked keys of a partitioned consumer (NULL: of every partitioned consumer of
-- the queue), by slot: since when, the event that holds each back, how often it was retried, and
-- where it is: 'retrying' (in the retry queue until retry_after), 'redelivering' (back in the queue,
-- not yet read), 'in batch' (handed out with the slot's open batch, awaiting its ack), 'resuming'
-- (acked or dead-lettered; the set_aside events go out with the slot's next batch).
CREATE OR REPLACE FUNCTION pgque.blocked_keys(i_queue text, i_consumer text DEFAULT NULL)
RETURNS TABLE (consumer text, slot int, n int, partition_key text, msg_id bigint, blocked_since timestamptz,
               state text, retry_count int4, retry_after timestamptz, set_aside bigint, reason text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue);
BEGIN
    IF i_consumer IS NOT NULL THEN
        PERFORM pgque.partition_pinned_n(pgque.partition_check_names(i_queue, i_consumer), i_consumer);
    END IF;
    RETURN QUERY
    SELECT m.name[1], m.name[2]::int, m.name[3]::int, pb.pb_key, pb.pb_head, pb.pb_since,
           CASE WHEN pb.pb_released THEN 'resuming'
                WHEN pb.pb_head_batch IS NOT NULL THEN 'in batch'
                WHEN r.ev_id IS NOT NULL THEN 'retrying'
                ELSE 'redelivering' END,
           coalesce(r.ev_retry, pb.pb_retries), r.ev_retry_after, pb.pb_set_aside, pb.pb_reason
      FROM pgque.partition_block pb
      JOIN pgque.subscription s ON s.sub_queue = pb.pb_queue AND s.sub_consumer = pb.pb_consumer
      JOIN pgque.consumer c ON c.co_id = pb.pb_consumer
     CROSS JOIN LATERAL (SELECT regexp_match(c.co_name, '^(.*)#([0-9]+)/([0-9]+)$') AS name) m
      LEFT JOIN pgque.retry_queue r ON r.ev_owner = s.sub_id AND r.ev_id = pb.pb_head
     WHERE pb.pb_queue = q.queue_id AND (i_consumer IS NULL OR m.name[1] = i_consumer)
     ORDER BY 1, 2, pb.pb_since, 4;
END
$$;

-- (addition) For an operator who fixed what made a blocked key's event fail: its redelivery is
-- due now rather than at its retry time (the retry mover brings it back on its next run). 1 when
-- the event waits in the retry queue, 0 when it is on its way back already.
CREATE OR REPLACE FUNCTION pgque.retry_blocked_key(i_queue text, i_consumer text, i_key text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    b record := pgque.slot_block_lock(i_queue, i_consumer, i_key);
    v_count int;
BEGIN
    UPDATE pgque.retry_queue SET ev_retry_after = least(ev_retry_after, now())
     WHERE ev_owner = (b.sub).sub_id AND ev_id = (b.block).pb_head;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;

-- (addition) For an operator who gives up on a blocked key's event: it goes from the retry queue
-- to the dead letters (of the key's slot) with i_reason, and the key is released: its set-aside
-- events go out with the slot's next batch. While the event is on its way back to the slot (not
-- in the retry queue: see blocked_keys' state) it cannot be taken (55000); call again once the
-- slot's worker has nacked or paused it again. Returns the event's id.
CREATE OR REPLACE FUNCTION pgque.dead_letter_blocked_key(i_queue text, i_consumer text, i_key text, i_reason text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    b record;
    r pgque.retry_queue;
BEGIN
    IF i_reason IS NULL OR i_reason = '' THEN
        RAISE EXCEPTION 'a dead letter needs a reason' USING ERRCODE = '22023';
    END IF;
    b := pgque.slot_block_lock(i_queue, i_consumer, i_key);
    DELETE FROM pgque.retry_queue WHERE ev_owner = (b.sub).sub_id AND ev_id = (b.block).pb_head RETURNING * INTO r;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'event % that blocks key % of consumer % on queue % is on its way back to its slot', (b.block).pb_head,
            i_key, i_consumer, i_queue USING ERRCODE = '55000',
            HINT = 'Call again once the slot''s worker has read it and paused or nacked it again (pgque.blocked_keys() says retrying); an ack releases the key by itself.';
    END IF;
    INSERT INTO pgque.dead_letter (dl_queue_id, dl_consumer_id, dl_reason, ev_id, ev_time, ev_txid, ev_retry,
                                   ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
    VALUES ((b.sub).sub_queue, (b.sub).sub_consumer, i_reason, r.ev_id, r.ev_time, r.ev_txid, r.ev_retry,
            r.ev_type, r.ev_data, r.ev_extra1, r.ev_extra2, r.ev_extra3, r.ev_extra4)
    ON CONFLICT (dl_queue_id, dl_consumer_id, ev_id) DO NOTHING;
    IF (b.block).pb_set_aside = 0 THEN
        DELETE FROM pgque.partition_block
         WHERE pb_queue = (b.sub).sub_queue AND pb_consumer = (b.sub).sub_consumer AND pb_key = i_key;
    ELSE
        UPDATE pgque.partition_block SET pb_released = true
         WHERE pb_queue = (b.sub).sub_queue AND pb_consumer = (b.sub).sub_consumer AND pb_key = i_key;
        PERFORM pgque.slot_block_wake((b.sub).sub_queue);
    END IF;
    RETURN r.ev_id;
END
$$;

-- Internal: at the end of a resize, the blocked keys and set-aside events of the old slots (whose
-- consumers are i_old) follow their key to its slot of the new N, as their retries do.
CREATE OR REPLACE FUNCTION pgque.slot_block_rehome(i_queue_id int4, i_consumer text, i_new_n int, i_old int4[])
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    UPDATE pgque.partition_block pb
       SET pb_consumer = n.sub_consumer, pb_head_batch = NULL
      FROM pgque.subscription n JOIN pgque.consumer c ON c.co_id = n.sub_consumer
     WHERE pb.pb_queue = i_queue_id AND pb.pb_consumer = ANY (i_old)
       AND n.sub_queue = i_queue_id
       AND c.co_name = pgque.slot_consumer_name(i_consumer, pgque.slot_of(pb.pb_key, i_new_n), i_new_n);
    UPDATE pgque.partition_set_aside sa
       SET sa_consumer = n.sub_consumer,
           ev_owner = CASE WHEN sa.ev_owner IS NULL THEN NULL ELSE n.sub_id END
      FROM pgque.subscription n JOIN pgque.consumer c ON c.co_id = n.sub_consumer
     WHERE sa.sa_queue = i_queue_id AND sa.sa_consumer = ANY (i_old)
       AND n.sub_queue = i_queue_id
       AND c.co_name = pgque.slot_consumer_name(i_consumer, pgque.slot_of(sa.ev_extra1, i_new_n), i_new_n);
END
$$;

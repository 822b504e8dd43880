--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Rotation reclaims storage by TRUNCATE instead of DELETE + VACUUM, in two steps: step 1
-- switches the active table, step 2 (once the switch is committed) records a transaction id
-- from which on only the new table is written. Step 2 called too early settles nothing, so no
-- caller can lose events by the order of its calls. Ticker role.
--
-- Layer: on top (README.md). Calls any earlier file (maint() reaps 65_idem.sql's keys and delivers
-- 66_delayed.sql's due events).

-- Internal: the consumer whose cursor keeps the queue's oldest table from being reused, or NULL.
-- The slowest cursor decides: while it may still need events written before the last switch
-- was settled, the oldest table must stay. Rotation step 1 asks it, and so does monitoring
-- (queue_stats(), 84_status.sql: a rotation that is due and held back so is pinned).
CREATE OR REPLACE FUNCTION pgque.queue_rotation_holder(i_q pgque.queue)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_consumer text;
    v_xmin bigint;
BEGIN
    SELECT c.co_name, pg_snapshot_xmin(t.tick_snapshot)::text::bigint INTO v_consumer, v_xmin
      FROM pgque.subscription s
      JOIN pgque.consumer c ON c.co_id = s.sub_consumer
      LEFT JOIN pgque.tick t ON t.tick_queue = s.sub_queue AND t.tick_id = s.sub_last_tick
     WHERE s.sub_queue = i_q.queue_id AND s.sub_last_tick IS NOT NULL
     ORDER BY s.sub_last_tick, c.co_name
     LIMIT 1;
    IF FOUND AND (v_xmin IS NULL OR v_xmin <= i_q.queue_switch_step2) THEN
        RETURN v_consumer;
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION pgque.maint_rotate_tables_step1(i_queue_name text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_next int4;
    v_table text;
BEGIN
    PERFORM 1 FROM pgque.queue WHERE queue_name = i_queue_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue not found: %', i_queue_name USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001';
    END IF;
    -- Rotation never waits behind producers: only non-key columns change, so NO KEY UPDATE,
    -- which idempotent sends (FOR KEY SHARE) do not block; and a row held by anyone else (a
    -- REPEATABLE READ producer's FOR SHARE, a forced tick) is skipped until the next round, so
    -- maint() never holds one queue's row while it waits for another's.
    SELECT * INTO q FROM pgque.queue WHERE queue_name = i_queue_name FOR NO KEY UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    IF q.queue_switch_step2 IS NULL OR q.queue_switch_time + q.queue_rotation_period >= now() THEN
        RETURN 0;
    END IF;
    IF pgque.txid_current() < q.queue_switch_step1 THEN
        RAISE EXCEPTION 'queue % maint failure: step1=%, current=%', i_queue_name, q.queue_switch_step1, pgque.txid_current()
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000', DETAIL = 'The current transaction id is below the last switch: restored or corrupt state.';
    END IF;

    IF pgque.queue_rotation_holder(q) IS NOT NULL THEN
        RETURN 0;
    END IF;

    v_next := (q.queue_cur_table + 1) % q.queue_ntables;
    v_table := pgque.event_table_name(q.queue_id, v_next);
    BEGIN
        -- Someone reading the table (a backup, say): try again at the next maint().
        EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE NOWAIT', v_table);
    EXCEPTION WHEN lock_not_available THEN
        RETURN 0;
    END;
    EXECUTE format('TRUNCATE %s', v_table);

    UPDATE pgque.queue
       SET queue_cur_table = v_next, queue_switch_time = now(),
           queue_switch_step1 = pgque.txid_current(), queue_switch_step2 = NULL
     WHERE queue_id = q.queue_id;

    -- Keep ticks back to the previous switch so consumers can still be repositioned there;
    -- always keep the newest tick so new consumers can subscribe.
    DELETE FROM pgque.tick t
     WHERE t.tick_queue = q.queue_id
       AND pg_snapshot_xmin(t.tick_snapshot)::text::bigint < q.queue_switch_step2
       AND t.tick_id < (SELECT max(tick_id) FROM pgque.tick WHERE tick_queue = q.queue_id)
       AND NOT EXISTS (SELECT 1 FROM pgque.subscription s
                        WHERE s.sub_queue = q.queue_id AND t.tick_id IN (s.sub_last_tick, s.sub_next_tick));
    RETURN 1;
END
$$;

-- Step 2 settles a switch: it records in queue_switch_step2 a transaction id below which every
-- event written to the previous table lies, so that readers of later windows scan the current
-- table alone. A producer writes to the previous table only if it read the table number before
-- step 1's transaction committed, and it takes its own id before reading (event_active_table),
-- so the xmax of any snapshot in which step 1's transaction is visible as committed is such a
-- bound. Step 2's own id is not, when it runs in step 1's transaction or in one whose id was
-- assigned before step 1 committed: then an open producer's id lies above it, and readers would
-- skip its event. So a queue whose switch step 2 cannot see committed yet is left for a later
-- call, whoever calls it and however.
CREATE OR REPLACE FUNCTION pgque.maint_rotate_tables_step2()
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_count int;
BEGIN
    -- Like step 1, never waits for a producer's lock on the row: such a queue waits for the next round.
    UPDATE pgque.queue SET queue_switch_step2 = pg_snapshot_xmax(pg_current_snapshot())::text::bigint
     WHERE queue_id IN (SELECT queue_id FROM pgque.queue
                         WHERE queue_switch_step2 IS NULL
                           -- NULL: too old for the commit log to say, so long committed.
                           AND coalesce(pg_xact_status(queue_switch_step1::text::xid8), 'committed') = 'committed'
                           AND pg_visible_in_snapshot(queue_switch_step1::text::xid8, pg_current_snapshot())
                           FOR NO KEY UPDATE SKIP LOCKED);
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;

-- Periodic maintenance (not retries: that is maint_retry_events): rotation step 1 for every
-- queue that is due, then the engine's extra maintenance (expired idempotency keys), then the
-- delayed events that are due (as PgQue's maint() does). Returns the number of operations
-- performed plus the number of delayed events delivered.
CREATE OR REPLACE FUNCTION pgque.maint()
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_fn text;
    v_ops int := 0;
BEGIN
    FOR q IN SELECT * FROM pgque.queue ORDER BY queue_name LOOP
        v_ops := v_ops + pgque.maint_rotate_tables_step1(q.queue_name);
        -- The engine's own extra maintenance, for every queue that needs it: expired
        -- idempotency keys.
        IF EXISTS (SELECT 1 FROM pgque.idem i WHERE i.queue_id = q.queue_id AND i.expires_at < clock_timestamp()) THEN
            PERFORM pgque.maint_idem(q.queue_name);
            v_ops := v_ops + 1;
        END IF;
        -- Nothing else: a function name read from the table never reaches SQL that runs with the
        -- owner's rights. (pgque.maint_idem, which engines before 0.4.0 listed there, runs above.)
        FOREACH v_fn IN ARRAY coalesce(q.queue_extra_maint, '{}'::text[]) LOOP
            IF v_fn <> 'pgque.maint_idem' THEN
                RAISE WARNING 'maint: skipping extra maintenance function % of queue %: not one of the engine''s',
                    v_fn, q.queue_name;
            END IF;
        END LOOP;
    END LOOP;
    v_ops := v_ops + pgque.maint_deliver_delayed();
    RETURN v_ops;
END
$$;

-- Internal: why queue i_queue_id's rotation, due by its period, has not happened (for status()),
-- or NULL when it is not due. Rotation never waits, so each of these only makes it skip the
-- round, silently; this says which: step 2 not run yet, the slowest consumer still before the
-- last switch, another session's lock on the table to truncate (a LOCK ... IN ACCESS SHARE MODE
-- is enough), or a transaction holding the queue's row (a REPEATABLE READ producer, say).
CREATE OR REPLACE FUNCTION pgque.queue_rotation_blockers(i_queue_id int4)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_next_name text;
    v_next regclass;
    v_reasons text[] := '{}';
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_id = i_queue_id;
    IF NOT FOUND OR q.queue_switch_time + q.queue_rotation_period >= now() THEN
        RETURN NULL;
    END IF;
    IF q.queue_switch_step2 IS NULL THEN
        RETURN 'the last switch is not settled yet: maint_rotate_tables_step2() has not run since';
    END IF;
    IF pgque.queue_rotation_holder(q) IS NOT NULL THEN
        v_reasons := v_reasons || format('consumer %s has not read past the last switch', pgque.queue_rotation_holder(q));
    END IF;
    v_next_name := pgque.event_table_name(q.queue_id, (q.queue_cur_table + 1) % q.queue_ntables);
    v_next := v_next_name::regclass;
    v_reasons := v_reasons || (
        SELECT array_agg(format('pid %s (role %s) holds %s on %s, in a transaction open since %s',
                                l.pid, a.usename, l.mode, v_next_name, date_trunc('second', a.xact_start)) ORDER BY l.pid)
          FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'relation' AND l.relation = v_next AND l.granted AND l.pid <> pg_backend_pid());
    v_reasons := v_reasons || (
        SELECT array_agg(format('pid %s (role %s) holds the queue''s row in a transaction open since %s',
                                a.pid, a.usename, date_trunc('second', a.xact_start)))
          FROM pg_stat_activity a
         WHERE a.backend_xid = (SELECT xmax FROM pgque.queue WHERE queue_id = q.queue_id)
           AND a.pid <> pg_backend_pid());
    RETURN coalesce(array_to_string(v_reasons, '; '), '');
END
$$;

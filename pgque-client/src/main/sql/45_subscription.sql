--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Subscribing: consumers, their subscriptions (the cursors) and the receive lock. Reader role.
--
-- Layer: core (README.md). Calls 20_queue.sql. The modes above (52_coop.sql, 55_partition.sql
-- to 60_resize.sql) build on these functions; where a plain call meets a row of a mode, the core
-- asks one of the hooks below, never the mode.

-- Hooks: the core's own answer is the body here; the one layer named with each replaces the
-- body (CREATE OR REPLACE, same signature) with its own. The core asks them only about rows
-- whose sub_role is not 'normal', so a plain consumer pays no call for them.

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

-- Hook, filled by 57_partition_pause.sql: what a partition slot's subscription i_sub (a name
-- with #) keeps elsewhere goes with it, as its retries do, when it is unregistered. The core keeps
-- nothing elsewhere.
CREATE OR REPLACE FUNCTION pgque.hook_slot_forget(i_sub pgque.subscription)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN;
END
$$;

-- Internal: the subscription of a consumer, locked for the rest of the transaction (this row
-- lock is the receive lock), or NULL fields when the consumer is not subscribed.
CREATE OR REPLACE FUNCTION pgque.sub_lock(i_queue_id int4, i_consumer text)
RETURNS pgque.subscription
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
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

-- Internal: the consumer rows of i_co_ids go when nothing refers to them any more: no
-- subscription, and no dead letter (dead letters are evidence; they keep their consumer row, and
-- a consumer that subscribes again under the name finds them). A row another transaction holds
-- (registering the name on another queue, a subscription this one cannot see yet) stays: the
-- rows are locked first, in a statement of their own, with SKIP LOCKED, so an unsubscribe or a
-- drop_queue never waits for that registration and never deletes the row it commits against.
-- Under REPEATABLE READ or SERIALIZABLE, a registration that committed after this transaction's
-- snapshot is invisible to the checks below and shows only as the subscription's foreign key
-- refusing the delete: that is a serialization failure (40001; the whole transaction, run
-- again, sees the registration and keeps the row), not a broken constraint.
CREATE OR REPLACE FUNCTION pgque.consumer_forget(i_co_ids int4[])
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_free int4[] := ARRAY(SELECT c.co_id FROM pgque.consumer c WHERE c.co_id = ANY (i_co_ids)
                            ORDER BY c.co_id FOR UPDATE SKIP LOCKED);
    v_schema text;
    v_table text;
    v_constraint text;
BEGIN
    DELETE FROM pgque.consumer c
     WHERE c.co_id = ANY (v_free)
       AND NOT EXISTS (SELECT 1 FROM pgque.subscription o WHERE o.sub_consumer = c.co_id)
       AND NOT EXISTS (SELECT 1 FROM pgque.dead_letter d WHERE d.dl_consumer_id = c.co_id);
EXCEPTION WHEN foreign_key_violation THEN
    GET STACKED DIAGNOSTICS v_schema = SCHEMA_NAME, v_table = TABLE_NAME, v_constraint = CONSTRAINT_NAME;
    IF current_setting('transaction_isolation') <> 'read committed' AND v_schema = 'pgque' AND v_table = 'subscription'
       AND EXISTS (SELECT 1 FROM pg_constraint k
                    WHERE k.conname = v_constraint AND k.contype = 'f'
                      AND k.conrelid = 'pgque.subscription'::regclass AND k.confrelid = 'pgque.consumer'::regclass) THEN
        RAISE EXCEPTION 'could not serialize access: a consumer was registered by a concurrent transaction'
            USING ERRCODE = '40001', HINT = 'Run the transaction again.';
    END IF;
    RAISE;
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
    IF position('#' IN i_consumer) > 0 THEN
        PERFORM pgque.hook_slot_forget(s);
    END IF;
    DELETE FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_consumer = s.sub_consumer;
    PERFORM pgque.consumer_forget(ARRAY[s.sub_consumer]);
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

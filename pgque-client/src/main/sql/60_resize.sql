--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Online resize of a partitioned consumer's slot count N, with per-key order intact. Reader role
-- (the Kafka source connector, which runs as pgque_reader, resizes when its pgque.slots changes).
--
-- Layer: mode, on top of the partition files (README.md). Calls the core and 55_partition.sql to
-- 59_partition_read_ahead.sql. Its state is the partitioned consumer's slot-set state
-- (pgque.partition_consumer, 55_partition.sql), which every partition function reads; this file
-- holds the operations that change it.
--
-- The boundary is a tick, the seal: begin_resize writes it and registers the N' new slots at it.
-- While the consumer is "draining", no slot subscription of it may open a batch that ends after
-- the seal (the core's batch_open asks hook_batch_end_cap): the old slots read up to the seal and
-- stop, the new slots wait at it. Once every old slot stands at the seal with no open batch,
-- every event of the old epoch has been acked; complete_resize then retires the old slots and the
-- new ones read on from the seal. An event belongs to the epoch of the window its transaction
-- became visible in, so a producer transaction that commits after the seal is new-epoch, whatever
-- its event id. abort_resize drops the new slots; the old ones never passed the seal, so they
-- simply read on. docs/slots.md records every decision.

-- Internal: the old slots of a consumer being resized that still block completion, and why.
CREATE OR REPLACE FUNCTION pgque.resize_blockers(i_queue_id int4, i_consumer text)
RETURNS TABLE (slot int, blocked_by text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT st.slot, st.blocked_by
      FROM pgque.partition_slot_status st JOIN pgque.queue q ON q.queue_name = st.queue_name
     WHERE q.queue_id = i_queue_id AND st.consumer = i_consumer AND st.slot_set = 'old' AND st.blocked_by IS NOT NULL
     ORDER BY st.slot
$$;

-- Internal: the partitioned consumer's row, locked: begin, complete and abort run one at a time.
CREATE OR REPLACE FUNCTION pgque.resize_lock(i_q pgque.queue, i_consumer text)
RETURNS pgque.partition_consumer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    pc pgque.partition_consumer;
BEGIN
    PERFORM pgque.partition_pinned_n(i_q, i_consumer);
    SELECT * INTO pc FROM pgque.partition_consumer
     WHERE queue_id = i_q.queue_id AND co_name = i_consumer FOR UPDATE;
    IF NOT FOUND THEN
        -- Unsubscribed while we waited for its row.
        PERFORM pgque.partition_pinned_n(i_q, i_consumer);
    END IF;
    RETURN pc;
END
$$;

-- Internal: resize_lock for complete and abort, which need a resize in progress.
CREATE OR REPLACE FUNCTION pgque.resize_lock_draining(i_q pgque.queue, i_consumer text)
RETURNS pgque.partition_consumer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    pc pgque.partition_consumer := pgque.resize_lock(i_q, i_consumer);
BEGIN
    IF pc.resize_state <> 'draining' THEN
        RAISE EXCEPTION 'consumer % of queue % is not being resized', i_consumer, i_q.queue_name USING ERRCODE = '55000';
    END IF;
    RETURN pc;
END
$$;

-- Starts moving the consumer from its N slots to i_new_n: writes the seal tick, creates the new
-- slots at it, and gates both sets at it. Returns the seal tick.
CREATE OR REPLACE FUNCTION pgque.begin_resize(i_queue text, i_consumer text, i_new_n int)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    pc pgque.partition_consumer;
    v_names text[];
    v_clash text;
    v_seal bigint;
BEGIN
    IF i_new_n IS NULL OR i_new_n < 1 OR i_new_n > 256 THEN
        RAISE EXCEPTION 'slot count n must be between 1 and 256, got %', i_new_n USING ERRCODE = '22023';
    END IF;
    pc := pgque.resize_lock(q, i_consumer);
    IF pc.resize_state = 'draining' THEN
        RAISE EXCEPTION 'consumer % of queue % is already being resized from % to % slots; complete or abort that resize first',
            i_consumer, i_queue, pc.n, pc.n_next USING ERRCODE = '55000';
    END IF;
    IF i_new_n = pc.n THEN
        RAISE EXCEPTION 'consumer % of queue % already has % slots', i_consumer, i_queue, pc.n USING ERRCODE = '22023';
    END IF;
    -- The seal is a tick of our own; a queue ticked from elsewhere or paused cannot get one.
    IF q.queue_external_ticker THEN
        RAISE EXCEPTION 'This queue has external tick source.' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s gets its ticks from the four-argument ticker(); a resize needs a seal tick of its own.', i_queue);
    END IF;
    IF q.queue_ticker_paused THEN
        RAISE EXCEPTION 'Ticker has been paused for this queue' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s has ticker_paused = true; a resize needs a seal tick.', i_queue);
    END IF;
    v_names := pgque.slot_consumer_names(i_consumer, i_new_n);
    SELECT c.co_name INTO v_clash
      FROM pgque.subscription s JOIN pgque.consumer c ON c.co_id = s.sub_consumer
     WHERE s.sub_queue = q.queue_id AND c.co_name = ANY (v_names)
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'queue % already has subscription %, which the new slot set needs; unsubscribe it first',
            i_queue, v_clash USING ERRCODE = 'PQ006';
    END IF;
    -- A retry mover still running could commit after the seal's snapshot and put old-slot
    -- retries after the seal. Wait for it; movers that start later see the resize and hold
    -- those retries back.
    LOCK TABLE pgque.retry_queue IN SHARE UPDATE EXCLUSIVE MODE;
    v_seal := pgque.tick_insert(q.queue_id);
    UPDATE pgque.partition_consumer
       SET resize_state = 'draining', n_next = i_new_n, seal_tick = v_seal, resize_started = now()
     WHERE queue_id = q.queue_id AND co_name = i_consumer;
    FOR k IN 0 .. i_new_n - 1 LOOP
        PERFORM pgque.sub_register(i_queue, v_names[k + 1], v_seal);
    END LOOP;
    RETURN v_seal;
END
$$;

-- True when complete_resize would succeed now: every old slot stands at the seal with no open
-- batch. False when no resize is in progress.
CREATE OR REPLACE FUNCTION pgque.resize_ready(i_queue text, i_consumer text)
RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
BEGIN
    PERFORM pgque.partition_pinned_n(q, i_consumer);
    RETURN pgque.partition_resizing(q.queue_id, i_consumer)
       AND NOT EXISTS (SELECT 1 FROM pgque.resize_blockers(q.queue_id, i_consumer));
END
$$;

-- Ends the old epoch: re-checks readiness under the locks that reads and acks take, moves the
-- old slots' pending retries and dead letters to the new slot of their key, retires the old
-- slots and their leases, and makes the new N the pinned one. Returns the new N.
CREATE OR REPLACE FUNCTION pgque.complete_resize(i_queue text, i_consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    pc pgque.partition_consumer;
    v_old text[];
    v_blockers text;
    v_old_subs int4[];
    v_old_cos int4[];
    v_lease_epoch bigint;
BEGIN
    pc := pgque.resize_lock_draining(q, i_consumer);
    v_old := pgque.slot_consumer_names(i_consumer, pc.n);
    -- Wait for reads and acks in flight on old slots, in the order they lock: lease row, then
    -- subscription.
    PERFORM 1 FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer ORDER BY slot FOR UPDATE;
    SELECT array_agg(s.sub_id ORDER BY s.sub_id), array_agg(s.sub_consumer ORDER BY s.sub_id) INTO v_old_subs, v_old_cos
      FROM pgque.subscription s JOIN pgque.consumer c ON c.co_id = s.sub_consumer
     WHERE s.sub_queue = q.queue_id AND c.co_name = ANY (v_old);
    PERFORM 1 FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_id = ANY (v_old_subs)
     ORDER BY sub_id FOR UPDATE;
    SELECT string_agg('slot ' || b.slot || ': ' || b.blocked_by, '; ' ORDER BY b.slot) INTO v_blockers
      FROM pgque.resize_blockers(q.queue_id, i_consumer) b;
    IF v_blockers IS NOT NULL THEN
        RAISE EXCEPTION 'resize of consumer % on queue % from % to % slots is not ready: %',
            i_consumer, i_queue, pc.n, pc.n_next, v_blockers USING ERRCODE = '55000';
    END IF;

    -- Pending retries and dead letters follow their key to its new slot.
    UPDATE pgque.retry_queue r
       SET ev_owner = (SELECT s.sub_id FROM pgque.subscription s JOIN pgque.consumer c ON c.co_id = s.sub_consumer
                        WHERE s.sub_queue = q.queue_id
                          AND c.co_name = pgque.slot_consumer_name(i_consumer, pgque.slot_of(r.ev_extra1, pc.n_next), pc.n_next))
     WHERE r.ev_queue = q.queue_id AND r.ev_owner = ANY (v_old_subs);
    UPDATE pgque.dead_letter d
       SET dl_consumer_id = (SELECT c.co_id FROM pgque.consumer c
                              WHERE c.co_name = pgque.slot_consumer_name(i_consumer, pgque.slot_of(d.ev_extra1, pc.n_next), pc.n_next))
     WHERE d.dl_queue_id = q.queue_id AND d.dl_consumer_id = ANY (v_old_cos);

    -- So do blocked keys and the events set aside for them (pause).
    PERFORM pgque.slot_block_rehome(q.queue_id, i_consumer, pc.n_next, v_old_cos);

    -- New lease rows start above every old epoch, so lease epochs stay usable as fencing tokens
    -- across the switch.
    SELECT max(epoch) INTO v_lease_epoch FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer;
    DELETE FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer;
    FOR k IN 0 .. pc.n - 1 LOOP
        PERFORM pgque.sub_unregister(i_queue, v_old[k + 1]);
    END LOOP;
    INSERT INTO pgque.partition_slot (queue_id, co_name, slot, epoch)
    SELECT q.queue_id, i_consumer, k, coalesce(v_lease_epoch, 0) FROM generate_series(0, pc.n_next - 1) k;
    UPDATE pgque.partition_consumer
       SET n = n_next, n_prev = n, n_next = NULL, seal_tick = NULL, resize_state = 'stable',
           epoch = epoch + 1, resize_started = NULL
     WHERE queue_id = q.queue_id AND co_name = i_consumer;
    RETURN pc.n_next;
END
$$;

-- Gives up a resize in progress: drops the new slots (they never read anything) and lifts the
-- gate; the old slots read on from where they are. Returns the N that stays.
CREATE OR REPLACE FUNCTION pgque.abort_resize(i_queue text, i_consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    pc pgque.partition_consumer;
BEGIN
    pc := pgque.resize_lock_draining(q, i_consumer);
    PERFORM pgque.partition_forget_next(q, i_consumer);
    UPDATE pgque.partition_consumer
       SET n_next = NULL, seal_tick = NULL, resize_state = 'stable', resize_started = NULL
     WHERE queue_id = q.queue_id AND co_name = i_consumer;
    RETURN pc.n;
END
$$;

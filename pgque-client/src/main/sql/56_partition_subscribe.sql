--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: subscribing and unsubscribing a partitioned consumer's slots. Reader role.
--
-- Layer: mode, partition (README.md). Calls the core and 55_partition.sql.

-- Internal: drops the new slot set of a resize in progress (unsubscribe_partitioned; and
-- abort_resize, 60_resize.sql).
CREATE OR REPLACE FUNCTION pgque.partition_forget_next(i_q pgque.queue, i_consumer text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_name text;
BEGIN
    FOR v_name IN SELECT unnest(pgque.slot_consumer_names(pc.co_name, pc.n_next))
                    FROM pgque.partition_consumer pc
                   WHERE pc.queue_id = i_q.queue_id AND pc.co_name = i_consumer AND pc.resize_state = 'draining' LOOP
        PERFORM pgque.sub_unregister(i_q.queue_name, v_name);
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION pgque.subscribe_slot(i_queue text, i_consumer text, i_slot int, i_n int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
BEGIN
    PERFORM pgque.partition_pin(q, i_consumer, i_n);
    PERFORM pgque.slot_check_range(i_slot, i_n, NULL, NULL);
    PERFORM pgque.sub_register(i_queue, pgque.slot_consumer_name(i_consumer, i_slot, i_n), NULL);
    INSERT INTO pgque.partition_slot (queue_id, co_name, slot) VALUES (q.queue_id, i_consumer, i_slot)
    ON CONFLICT DO NOTHING;
END
$$;

-- Creates all N slots at one shared tick, so no hash class starts later than another (a
-- slot that starts later silently loses the events ticked before it existed).
CREATE OR REPLACE FUNCTION pgque.subscribe_partitioned(i_queue text, i_consumer text, i_n int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    v_tick bigint;
    v_present int[];
    v_other text;
BEGIN
    PERFORM pgque.partition_pin(q, i_consumer, i_n);
    IF pgque.partition_resizing(q.queue_id, i_consumer) THEN
        RETURN; -- set up already; its new slot set is the resize's (60_resize.sql)
    END IF;
    -- Slot subscriptions of this consumer under another N (left from an older set-up).
    SELECT c.co_name INTO v_other
      FROM pgque.subscription s JOIN pgque.consumer c ON c.co_id = s.sub_consumer
     WHERE s.sub_queue = q.queue_id
       AND left(c.co_name, length(i_consumer) + 1) = i_consumer || '#'
       AND NOT c.co_name = ANY (ARRAY(SELECT pgque.slot_consumer_name(i_consumer, k, i_n) FROM generate_series(0, i_n - 1) k))
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'queue % already has slot subscription % that does not belong to n=%; unsubscribe it first',
            i_queue, v_other, i_n USING ERRCODE = 'PQ006';
    END IF;
    SELECT array_agg(k ORDER BY k) INTO v_present
      FROM generate_series(0, i_n - 1) k
      JOIN pgque.consumer c ON c.co_name = pgque.slot_consumer_name(i_consumer, k, i_n)
      JOIN pgque.subscription s ON s.sub_consumer = c.co_id AND s.sub_queue = q.queue_id;
    IF cardinality(v_present) = i_n THEN
        INSERT INTO pgque.partition_slot (queue_id, co_name, slot)
        SELECT q.queue_id, i_consumer, k FROM generate_series(0, i_n - 1) k
        ON CONFLICT DO NOTHING;
        RETURN;
    END IF;
    IF cardinality(v_present) > 0 THEN
        RAISE EXCEPTION 'consumer % of queue % is set up incompletely (slots % of % exist); call pgque.unsubscribe_partitioned() and subscribe again',
            i_consumer, i_queue, v_present, i_n USING ERRCODE = 'PQ006';
    END IF;
    SELECT max(tick_id) INTO v_tick FROM pgque.tick WHERE tick_queue = q.queue_id;
    FOR k IN 0 .. i_n - 1 LOOP
        PERFORM pgque.sub_register(i_queue, pgque.slot_consumer_name(i_consumer, k, i_n), v_tick);
        INSERT INTO pgque.partition_slot (queue_id, co_name, slot) VALUES (q.queue_id, i_consumer, k)
        ON CONFLICT DO NOTHING;
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION pgque.unsubscribe_slot(i_queue text, i_consumer text, i_slot int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    v_pc pgque.partition_consumer;
    v_n int4;
BEGIN
    -- The consumer's row, locked first: a resize (which locks it too) cannot start or end while
    -- the slot goes, and N is read under the lock.
    SELECT * INTO v_pc FROM pgque.partition_consumer WHERE queue_id = q.queue_id AND co_name = i_consumer FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_n := v_pc.n;
    IF v_pc.resize_state = 'draining' THEN
        RAISE EXCEPTION 'cannot unsubscribe slot % of consumer % on queue % while it is being resized from % to % slots',
            i_slot, i_consumer, i_queue, v_pc.n, v_pc.n_next
            USING ERRCODE = '55000',
                  HINT = 'Complete or abort the resize first (pgque.complete_resize(), pgque.abort_resize()), or unsubscribe the whole consumer with pgque.unsubscribe_partitioned().';
    END IF;
    PERFORM pgque.slot_check_range(i_slot, v_n, i_consumer, i_queue);
    PERFORM pgque.sub_unregister(i_queue, pgque.slot_consumer_name(i_consumer, i_slot, v_n));
    DELETE FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot;
    DELETE FROM pgque.partition_consumer pc
     WHERE pc.queue_id = q.queue_id AND pc.co_name = i_consumer
       AND NOT EXISTS (SELECT 1 FROM pgque.partition_slot ps WHERE ps.queue_id = pc.queue_id AND ps.co_name = pc.co_name);
END
$$;

CREATE OR REPLACE FUNCTION pgque.unsubscribe_partitioned(i_queue text, i_consumer text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    v_n int4;
BEGIN
    -- Locked before N is read: a begin_resize running now finishes first (and its new slots are
    -- dropped below with the old ones), or waits and then finds no consumer to resize.
    SELECT n INTO v_n FROM pgque.partition_consumer WHERE queue_id = q.queue_id AND co_name = i_consumer FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    FOR k IN 0 .. v_n - 1 LOOP
        PERFORM pgque.sub_unregister(i_queue, pgque.slot_consumer_name(i_consumer, k, v_n));
    END LOOP;
    PERFORM pgque.partition_forget_next(q, i_consumer);
    DELETE FROM pgque.partition_consumer WHERE queue_id = q.queue_id AND co_name = i_consumer;
END
$$;

-- Moves one slot's cursor to tick i_tick_id (NULL: the queue's newest tick), back to re-read
-- what the slot delivered since, or forward to skip what it has not. Its open batch, if any, is
-- abandoned, and its lease cleared: a worker whose lease had run out, still holding the slot's
-- batch, finds the slot unleased at its next read or ack (PQ005) and claims it again with a new
-- epoch. Refused (55000) while a live lease is held -- the holder would go on from where it
-- stood -- and while the consumer is being resized (a slot moved across the seal would break
-- the drain). Returns the tick the slot now stands at.
CREATE OR REPLACE FUNCTION pgque.reposition_slot(i_queue text, i_consumer text, i_slot int, i_tick_id bigint)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    v_pc pgque.partition_consumer;
    r pgque.partition_slot;
    v_name text;
    v_tick bigint := i_tick_id;
BEGIN
    -- The consumer's row first, as unsubscribe_slot: no resize starts or ends meanwhile.
    SELECT * INTO v_pc FROM pgque.partition_consumer WHERE queue_id = q.queue_id AND co_name = i_consumer FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'consumer % on queue % is not a partitioned consumer', i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    IF v_pc.resize_state = 'draining' THEN
        RAISE EXCEPTION 'cannot reposition slot % of consumer % on queue % while it is being resized from % to % slots',
            i_slot, i_consumer, i_queue, v_pc.n, v_pc.n_next
            USING ERRCODE = '55000',
                  HINT = 'Complete or abort the resize first (pgque.complete_resize(), pgque.abort_resize()).';
    END IF;
    PERFORM pgque.slot_check_range(i_slot, v_pc.n, i_consumer, i_queue);
    SELECT * INTO r FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot FOR UPDATE;
    v_name := pgque.slot_consumer_name(i_consumer, i_slot, v_pc.n);
    IF NOT FOUND OR (pgque.sub_lock(q.queue_id, v_name)).sub_id IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % is not subscribed', i_slot, i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    IF r.lease_owner IS NOT NULL AND r.lease_until > clock_timestamp() THEN
        RAISE EXCEPTION 'cannot reposition slot % of consumer % on queue %: worker % holds its lease until %',
            i_slot, i_consumer, i_queue, r.lease_owner, r.lease_until
            USING ERRCODE = '55000',
                  HINT = 'Stop the reader first (a Kafka Connect source: PUT /connectors/<name>/stop); its leases are released as it stops, or run out after their TTL.';
    END IF;
    IF v_tick IS NULL THEN
        SELECT max(tick_id) INTO v_tick FROM pgque.tick WHERE tick_queue = q.queue_id;
    END IF;
    -- Repositions the existing subscription (abandoning its open batch), or raises when the
    -- tick is gone.
    PERFORM pgque.sub_register(i_queue, v_name, v_tick);
    UPDATE pgque.partition_slot SET lease_owner = NULL, lease_until = NULL, lease_ttl = NULL, lease_key = NULL,
                                    lease_role = NULL
     WHERE queue_id = r.queue_id AND co_name = r.co_name AND slot = r.slot;
    RETURN v_tick;
END
$$;

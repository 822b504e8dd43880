--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Cooperative consumers (experimental): one logical consumer's stream split across a pool of
-- workers, each tick window to exactly one of them. Reader role.
--
-- Layer: mode (README.md). Calls the core (20_queue.sql to 51_retry.sql) and fills its hooks
-- hook_refuse_plain, hook_unregister (45_subscription.sql), hook_closed_cursor (50_batch.sql) and
-- hook_dead_letter_consumer (51_retry.sql).
--
-- No table of its own: its state is the role of a subscription row (sub_role, 10_tables.sql).
-- The main row (consumer C, sub_role 'coop_main') holds the group cursor and never a batch; each
-- member row (consumer "C.S", sub_role 'coop_member') shares the main's sub_id -- so retry copies
-- and batch reads work for the whole group -- and holds a tick window only while it has a batch
-- open. Lock order everywhere: main, then the calling member, then a victim member (taken with
-- SKIP LOCKED, so never waited for).

-- Fills hook_refuse_plain (45_subscription.sql): a main opens no batch of its own, a member none through
-- the plain API, and a member has no cursor to reposition (its main has).
CREATE OR REPLACE FUNCTION pgque.hook_refuse_plain(i_sub pgque.subscription, i_queue text, i_consumer text,
    i_call text)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_call = 'reposition' THEN
        IF i_sub.sub_role = 'coop_member' THEN
            RAISE EXCEPTION 'consumer % on queue % is a cooperative subconsumer; reposition its main consumer instead',
                i_consumer, i_queue USING ERRCODE = 'PQ009';
        END IF;
    ELSIF i_sub.sub_role = 'coop_main' THEN
        RAISE EXCEPTION 'consumer % on queue % is a cooperative main consumer; use cooperative receive/next_batch with a subconsumer',
            i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009',
                  HINT = format('call pgque.receive_coop(%L, %L, <subconsumer>) or pgque.next_batch(%L, %L, <subconsumer>)',
                                i_queue, i_consumer, i_queue, i_consumer);
    ELSIF i_sub.sub_role = 'coop_member' THEN
        RAISE EXCEPTION 'consumer % on queue % is a cooperative subconsumer; use receive_coop / next_batch (cooperative form) instead of the legacy 5-arg next_batch_custom',
            i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009',
                  HINT = format('call pgque.receive_coop(%L, %L, %L)', i_queue,
                                split_part(i_consumer, '.', 1),
                                substr(i_consumer, position('.' IN i_consumer) + 1));
    END IF;
END
$$;

-- Fills hook_unregister (45_subscription.sql): a member leaves through unregister_subconsumer (its main
-- locked first); a main goes as a plain row once its last member has left, checked here with
-- the main locked, so no member can register before the core removes it.
CREATE OR REPLACE FUNCTION pgque.hook_unregister(i_sub pgque.subscription, i_queue text, i_consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    m pgque.subscription;
BEGIN
    IF i_sub.sub_role = 'coop_member' THEN
        RETURN pgque.coop_unregister_member(i_queue, i_consumer, 0);
    END IF;
    m := pgque.sub_lock(i_sub.sub_queue, i_consumer);
    IF m.sub_role = 'coop_main' AND pgque.coop_has_members(m) THEN
        RAISE EXCEPTION 'cannot unregister cooperative main consumer with registered subconsumers'
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009',
                  HINT = 'unregister each subconsumer with pgque.unregister_subconsumer() first';
    END IF;
    RETURN NULL;
END
$$;

-- Fills hook_closed_cursor (50_batch.sql): a member only gives its window back (the group cursor,
-- on the main row, moved past the window when it was handed out); a main never holds a batch.
CREATE OR REPLACE FUNCTION pgque.hook_closed_cursor(i_role text, i_next_tick bigint, i_batch_id bigint)
RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_role = 'coop_member' THEN
        RETURN NULL;
    END IF;
    IF i_role = 'coop_main' THEN
        RAISE EXCEPTION 'cannot finish cooperative main consumer batch % as normal active consumer', i_batch_id
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000';
    END IF;
    RETURN i_next_tick;
END
$$;

-- Fills hook_dead_letter_consumer (51_retry.sql): a member's dead letters go to its main, so
-- they outlive the member.
CREATE OR REPLACE FUNCTION pgque.hook_dead_letter_consumer(i_sub pgque.subscription)
RETURNS int4
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_sub.sub_role = 'coop_member' THEN
        RETURN coalesce((SELECT m.sub_consumer FROM pgque.subscription m
                          WHERE m.sub_queue = i_sub.sub_queue AND m.sub_id = i_sub.sub_id AND m.sub_role = 'coop_main'),
                        i_sub.sub_consumer);
    END IF;
    RETURN i_sub.sub_consumer;
END
$$;

-- Internal: whether a main row still has members.
CREATE OR REPLACE FUNCTION pgque.coop_has_members(i_main pgque.subscription)
RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM pgque.subscription m
                    WHERE m.sub_queue = i_main.sub_queue AND m.sub_id = i_main.sub_id AND m.sub_role = 'coop_member');
END
$$;

-- Internal: name rules. A member is named "<consumer>.<subconsumer>", so neither part may hold
-- a dot; "#" is reserved for partition slots.
CREATE OR REPLACE FUNCTION pgque.coop_check_names(i_queue text, i_consumer text, i_subconsumer text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_queue IS NULL OR i_queue = '' THEN
        RAISE EXCEPTION 'queue name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_consumer IS NULL OR i_consumer = '' THEN
        RAISE EXCEPTION 'consumer name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_subconsumer IS NULL OR i_subconsumer = '' THEN
        RAISE EXCEPTION 'subconsumer name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF position('.' IN i_consumer) > 0 THEN
        RAISE EXCEPTION 'cooperative consumer name must not contain dot: %', i_consumer USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF position('.' IN i_subconsumer) > 0 THEN
        RAISE EXCEPTION 'cooperative subconsumer name must not contain dot: %', i_subconsumer USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF position('#' IN i_consumer || i_subconsumer) > 0 THEN
        RAISE EXCEPTION 'cooperative consumer name must not contain the reserved character #: %.%', i_consumer, i_subconsumer
            USING ERRCODE = '22023';
    END IF;
    RETURN i_consumer || '.' || i_subconsumer;
END
$$;

CREATE OR REPLACE FUNCTION pgque.register_subconsumer(i_queue text, i_consumer text, i_subconsumer text,
    i_convert_normal boolean DEFAULT false)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_member text := pgque.coop_check_names(i_queue, i_consumer, i_subconsumer);
    q pgque.queue := pgque.queue_row(i_queue);
    m pgque.subscription;
    s pgque.subscription;
    v_co int4;
    v_created int;
BEGIN
    -- The main: created (at the newest tick) as a plain subscription, then given its role.
    v_created := pgque.register_consumer(i_queue, i_consumer);
    m := pgque.sub_lock(q.queue_id, i_consumer);
    IF v_created = 0 AND m.sub_role = 'normal' THEN
        IF NOT coalesce(i_convert_normal, false) AND NOT m.sub_was_coop_main THEN
            RAISE EXCEPTION 'consumer % on queue % is already a normal consumer; explicit conversion is required', i_consumer, i_queue
                USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000', HINT = 'pass i_convert_normal => true to turn it into a cooperative main consumer';
        END IF;
        IF m.sub_batch IS NOT NULL THEN
            RAISE EXCEPTION 'cannot convert active normal consumer % on queue % to cooperative main', i_consumer, i_queue
                USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000', HINT = format('ack its open batch %s first', m.sub_batch);
        END IF;
        v_created := 1;
    ELSIF m.sub_role = 'coop_member' THEN
        RAISE EXCEPTION 'consumer % on queue % is not a cooperative main consumer', i_consumer, i_queue USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
    END IF;
    IF m.sub_role <> 'coop_main' THEN
        UPDATE pgque.subscription SET sub_role = 'coop_main', sub_was_coop_main = false
         WHERE sub_queue = m.sub_queue AND sub_consumer = m.sub_consumer;
    END IF;

    -- The member: idle (no window), sharing the main's sub_id.
    INSERT INTO pgque.consumer (co_name) VALUES (v_member) ON CONFLICT (co_name) DO NOTHING;
    SELECT co_id INTO v_co FROM pgque.consumer WHERE co_name = v_member;
    INSERT INTO pgque.subscription (sub_id, sub_queue, sub_consumer, sub_role, sub_last_tick)
    VALUES (m.sub_id, q.queue_id, v_co, 'coop_member', NULL)
    ON CONFLICT (sub_queue, sub_consumer) DO NOTHING;
    IF FOUND THEN
        RETURN 1;
    END IF;
    SELECT * INTO s FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_consumer = v_co;
    IF s.sub_role <> 'coop_member' OR s.sub_id <> m.sub_id THEN
        RAISE EXCEPTION 'consumer name % on queue % is already registered incompatibly', v_member, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
    END IF;
    RETURN v_created;
END
$$;

CREATE OR REPLACE FUNCTION pgque.subscribe_subconsumer(i_queue text, i_consumer text, i_subconsumer text,
    i_convert_normal boolean DEFAULT false)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT pgque.register_subconsumer(i_queue, i_consumer, i_subconsumer, i_convert_normal)
$$;

-- Internal: a member's open window through the nack policy, all events at once: dead letter
-- (attributed to the main) once retried max_retries times, otherwise retry in 60 seconds.
CREATE OR REPLACE FUNCTION pgque.coop_nack_window(i_sub pgque.subscription, i_reason text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_max int4;
    v_count int;
BEGIN
    SELECT coalesce(queue_max_retries, 5) INTO v_max FROM pgque.queue WHERE queue_id = i_sub.sub_queue;
    WITH e AS MATERIALIZED (
             SELECT * FROM pgque.batch_event_rows(i_sub.sub_batch, NULL, NULL, NULL, NULL)),
         dead AS (
             INSERT INTO pgque.dead_letter (dl_queue_id, dl_consumer_id, dl_reason, ev_id, ev_time, ev_txid, ev_retry,
                                            ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
             SELECT i_sub.sub_queue, pgque.hook_dead_letter_consumer(i_sub), i_reason, e.ev_id, e.ev_time, e.ev_txid, e.ev_retry,
                    e.ev_type, e.ev_data, e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4
               FROM e WHERE coalesce(e.ev_retry, 0) >= v_max
             ON CONFLICT (dl_queue_id, dl_consumer_id, ev_id) DO NOTHING
             RETURNING 1),
         retried AS (
             INSERT INTO pgque.retry_queue (ev_retry_after, ev_queue, ev_id, ev_time, ev_txid, ev_owner, ev_retry,
                                            ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
             SELECT now() + interval '60 seconds', i_sub.sub_queue, e.ev_id, e.ev_time, NULL, i_sub.sub_id,
                    coalesce(e.ev_retry, 0) + 1,
                    e.ev_type, e.ev_data, e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4
               FROM e WHERE coalesce(e.ev_retry, 0) < v_max
             ON CONFLICT (ev_owner, ev_id) DO NOTHING
             RETURNING 1)
    SELECT (SELECT count(*) FROM dead) + (SELECT count(*) FROM retried) INTO v_count;
    RETURN v_count;
END
$$;

CREATE OR REPLACE FUNCTION pgque.unregister_subconsumer(i_queue text, i_consumer text, i_subconsumer text,
    i_batch_handling integer DEFAULT 0)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_member text := pgque.coop_check_names(i_queue, i_consumer, i_subconsumer);
    q pgque.queue;
    m pgque.subscription;
    s pgque.subscription;
BEGIN
    IF i_batch_handling IS NULL OR i_batch_handling NOT IN (0, 1) THEN
        RAISE EXCEPTION 'unsupported batch_handling value: %', i_batch_handling
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', HINT = '0 refuses a member with an open batch, 1 sends its events through the nack policy';
    END IF;
    q := pgque.queue_row(i_queue);
    m := pgque.sub_lock(q.queue_id, i_consumer);
    IF m.sub_role IS DISTINCT FROM 'coop_main' THEN
        RETURN 0;
    END IF;
    s := pgque.sub_lock(q.queue_id, v_member);
    IF s.sub_role IS DISTINCT FROM 'coop_member' OR s.sub_id <> m.sub_id THEN
        RETURN 0;
    END IF;
    IF s.sub_batch IS NOT NULL THEN
        IF i_batch_handling = 0 THEN
            RAISE EXCEPTION 'cannot unregister active cooperative subconsumer %/%/% without batch_handling = 1',
                i_queue, i_consumer, i_subconsumer
                USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
                      HINT = format('ack batch %s first, or pass i_batch_handling => 1 to retry or dead-letter its events', s.sub_batch);
        END IF;
        PERFORM pgque.coop_nack_window(s, format('max retries exceeded (subconsumer %s unregistered with its batch open)', v_member));
    END IF;
    DELETE FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_consumer = s.sub_consumer;
    PERFORM pgque.consumer_forget(ARRAY[s.sub_consumer]);
    -- The last member gone: the main is a plain consumer again (as in PgQue), its cursor past
    -- every window; marked, so that a member registering again resumes the group from there.
    IF NOT pgque.coop_has_members(m) THEN
        UPDATE pgque.subscription SET sub_role = 'normal', sub_was_coop_main = true
         WHERE sub_queue = m.sub_queue AND sub_consumer = m.sub_consumer;
    END IF;
    RETURN 1;
END
$$;

-- Internal: unregister_subconsumer for a member given by its full name "<consumer>.<sub>".
CREATE OR REPLACE FUNCTION pgque.coop_unregister_member(i_queue text, i_member text, i_batch_handling integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT pgque.unregister_subconsumer(i_queue, split_part(i_member, '.', 1),
                                        substr(i_member, position('.' IN i_member) + 1), i_batch_handling)
$$;

CREATE OR REPLACE FUNCTION pgque.unsubscribe_subconsumer(i_queue text, i_consumer text, i_subconsumer text,
    i_batch_handling integer DEFAULT 0)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT pgque.unregister_subconsumer(i_queue, i_consumer, i_subconsumer, i_batch_handling)
$$;

-- Hands the member a tick window: the one it already holds, else a stale sibling's (with
-- i_dead_interval), else the next one after the group cursor. The main row lock serialises
-- allocation for the whole group -- and is held until the caller's transaction ends, which is
-- why workers should open batches in a short transaction of their own.
CREATE OR REPLACE FUNCTION pgque.next_batch_custom(i_queue text, i_consumer text, i_subconsumer text,
    i_min_lag interval, i_min_count int4, i_min_interval interval, i_dead_interval interval DEFAULT NULL,
    OUT batch_id bigint, OUT prev_tick_id bigint, OUT next_tick_id bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_member text := pgque.coop_check_names(i_queue, i_consumer, i_subconsumer);
    q pgque.queue := pgque.queue_row(i_queue);
    m pgque.subscription;
    s pgque.subscription;
    v pgque.subscription;
    v_last pgque.tick;
    v_next pgque.tick;
BEGIN
    m := pgque.sub_lock(q.queue_id, i_consumer);
    s := pgque.sub_lock(q.queue_id, v_member);
    IF m.sub_role IS DISTINCT FROM 'coop_main' OR s.sub_role IS DISTINCT FROM 'coop_member' OR s.sub_id <> m.sub_id THEN
        PERFORM pgque.register_subconsumer(i_queue, i_consumer, i_subconsumer, false);
        m := pgque.sub_lock(q.queue_id, i_consumer);
        s := pgque.sub_lock(q.queue_id, v_member);
    END IF;
    IF m.sub_batch IS NOT NULL THEN
        RAISE EXCEPTION 'cooperative main consumer %/% has an unexpected active batch %', i_queue, i_consumer, m.sub_batch
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000';
    END IF;

    IF s.sub_batch IS NOT NULL THEN
        UPDATE pgque.subscription SET sub_active = clock_timestamp()
         WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
        batch_id := s.sub_batch;
        prev_tick_id := s.sub_last_tick;
        next_tick_id := s.sub_next_tick;
        RETURN;
    END IF;

    IF i_dead_interval IS NOT NULL THEN
        -- A sibling silent for longer than the dead interval loses its window. Its row lock is
        -- only tried: a sibling acking right now keeps its batch.
        SELECT * INTO v FROM pgque.subscription o
         WHERE o.sub_queue = q.queue_id AND o.sub_id = m.sub_id AND o.sub_role = 'coop_member'
           AND o.sub_consumer <> s.sub_consumer AND o.sub_batch IS NOT NULL
           AND o.sub_active < clock_timestamp() - i_dead_interval
         ORDER BY o.sub_active
         LIMIT 1
           FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            UPDATE pgque.subscription SET sub_batch = NULL, sub_last_tick = NULL, sub_next_tick = NULL
             WHERE sub_queue = v.sub_queue AND sub_consumer = v.sub_consumer;
            -- A fresh id: the stale owner's late ack or nack finds no batch.
            batch_id := nextval('pgque.batch_id_seq');
            UPDATE pgque.subscription
               SET sub_last_tick = v.sub_last_tick, sub_next_tick = v.sub_next_tick, sub_batch = batch_id,
                   sub_active = clock_timestamp()
             WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
            prev_tick_id := v.sub_last_tick;
            next_tick_id := v.sub_next_tick;
            RETURN;
        END IF;
    END IF;

    IF m.sub_last_tick IS NULL THEN
        RAISE EXCEPTION 'PgQ corruption: cooperative main consumer % on queue % has no cursor', i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000';
    END IF;
    SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id AND tick_id = m.sub_last_tick;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'PgQ corruption: cooperative main consumer % on queue % does not see tick %', i_consumer, i_queue, m.sub_last_tick
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000';
    END IF;
    v_next := pgque.batch_next_tick(v_last, i_min_lag, i_min_count, i_min_interval);
    IF v_next.tick_id IS NULL THEN
        -- Nothing to hand out; sub_active stays as it was, so an idle member never looks stale.
        RETURN;
    END IF;
    batch_id := nextval('pgque.batch_id_seq');
    UPDATE pgque.subscription SET sub_last_tick = v_next.tick_id, sub_active = now()
     WHERE sub_queue = m.sub_queue AND sub_consumer = m.sub_consumer;
    UPDATE pgque.subscription
       SET sub_last_tick = m.sub_last_tick, sub_next_tick = v_next.tick_id, sub_batch = batch_id,
           sub_active = clock_timestamp()
     WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
    prev_tick_id := m.sub_last_tick;
    next_tick_id := v_next.tick_id;
END
$$;

CREATE OR REPLACE FUNCTION pgque.next_batch(i_queue text, i_consumer text, i_subconsumer text,
    i_dead_interval interval DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (SELECT b.batch_id
              FROM pgque.next_batch_custom(i_queue, i_consumer, i_subconsumer, NULL, NULL, NULL, i_dead_interval) b);
END
$$;

CREATE OR REPLACE FUNCTION pgque.receive_coop(i_queue text, i_consumer text, i_subconsumer text,
    i_max_return int DEFAULT 100, i_dead_interval interval DEFAULT NULL)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_batch bigint;
BEGIN
    IF i_max_return IS NULL OR i_max_return < 1 THEN
        RAISE EXCEPTION 'pgque.receive_coop: max_return must be >= 1, got %', i_max_return USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    v_batch := pgque.next_batch(i_queue, i_consumer, i_subconsumer, i_dead_interval);
    IF v_batch IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT * FROM pgque.batch_first_page(v_batch, i_max_return, NULL, NULL);
END
$$;

-- Heartbeat of a member working through a long batch, from a session other than the one doing
-- the work (an update inside the worker's open transaction would not be seen by its siblings).
CREATE OR REPLACE FUNCTION pgque.touch_subconsumer(i_queue text, i_consumer text, i_subconsumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_member text := pgque.coop_check_names(i_queue, i_consumer, i_subconsumer);
    v_count int;
BEGIN
    UPDATE pgque.subscription sub SET sub_active = clock_timestamp()
      FROM pgque.consumer c
     WHERE sub.sub_queue = (pgque.queue_row(i_queue)).queue_id
       AND c.co_id = sub.sub_consumer AND c.co_name = v_member AND sub.sub_role = 'coop_member';
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;

-- This project's addition, the cooperative twin of dead_letter_partitioned: moves one event of
-- the member's open batch to the dead letters now, whatever its retry count -- for an event no
-- retry can fix, such as a payload the reader cannot convert. Attributed to the main consumer
-- like every dead letter of the group; idempotent; the batch stays open (ack it as usual). The
-- member row is locked first, so a sibling's takeover of the batch and this call are ordered:
-- after a takeover the old owner's call finds no open batch.
CREATE OR REPLACE FUNCTION pgque.dead_letter_subconsumer(i_queue text, i_consumer text, i_subconsumer text,
    i_msg_id bigint, i_reason text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_member text := pgque.coop_check_names(i_queue, i_consumer, i_subconsumer);
    q pgque.queue := pgque.queue_row(i_queue);
    s pgque.subscription;
BEGIN
    IF i_reason IS NULL OR i_reason = '' THEN
        RAISE EXCEPTION 'a dead letter needs a reason' USING ERRCODE = '22023';
    END IF;
    s := pgque.sub_lock(q.queue_id, v_member);
    IF s.sub_role IS DISTINCT FROM 'coop_member' THEN
        RAISE EXCEPTION 'subconsumer % of cooperative consumer % on queue % is not registered', i_subconsumer,
            i_consumer, i_queue USING ERRCODE = 'PQ002';
    END IF;
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'subconsumer % of cooperative consumer % on queue % has no open batch', i_subconsumer,
            i_consumer, i_queue USING ERRCODE = 'PQ003';
    END IF;
    PERFORM pgque.dead_letter_event(s, s.sub_batch, i_msg_id, i_reason, NULL, NULL);
    RETURN 1;
END
$$;

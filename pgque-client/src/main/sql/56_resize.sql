--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Online resize of a partitioned consumer's slot count N, with per-key order intact. Reader role
-- (the Kafka source connector, which runs as pgque_reader, resizes when its pgque.slots changes).
--
-- The boundary is a tick, the seal: begin_resize writes it and registers the N' new slots at it.
-- While the consumer is "draining", no slot subscription of it may open a batch that ends after
-- the seal (next_batch_custom asks resize_tick_cap): the old slots read up to the seal and stop,
-- the new slots wait at it. Once every old slot stands at the seal with no open batch, every
-- event of the old epoch has been acked; complete_resize then retires the old slots and the new
-- ones read on from the seal. An event belongs to the epoch of the window its transaction
-- became visible in, so a producer transaction that commits after the seal is new-epoch, whatever
-- its event id. abort_resize drops the new slots; the old ones never passed the seal, so they
-- simply read on. docs/slots.md records every decision.

ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS resize_state text NOT NULL DEFAULT 'stable'
    CHECK (resize_state IN ('stable', 'draining'));
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS n_next int4 CHECK (n_next BETWEEN 1 AND 256);
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS seal_tick bigint;
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS n_prev int4;
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS resize_started timestamptz;

-- The queue's events after its last tick, which no batch holds yet, and that tick's age: what a
-- ticker that stopped leaves behind (get_queue_info's ev_new without the ids a forced tick
-- drew). Definer: it reads the event sequence, which the readers of partition_slot_status may not.
CREATE OR REPLACE FUNCTION pgque.tick_backlog(i_queue_id int4, OUT unticked_events bigint, OUT ticker_lag interval)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT greatest(pgque.seq_getval(pgque.event_seq_name(q.queue_id)) - q.queue_forced_ids
                    - (t.tick_event_seq - t.tick_forced_ids), 0),
           now() - t.tick_time
      FROM pgque.queue q
      LEFT JOIN LATERAL (SELECT tk.tick_event_seq, tk.tick_forced_ids, tk.tick_time FROM pgque.tick tk WHERE tk.tick_queue = q.queue_id
                          ORDER BY tk.tick_id DESC LIMIT 1) t ON true
     WHERE q.queue_id = i_queue_id
$$;

-- One row per slot of every partitioned consumer, also for slots nobody polls: an unpolled slot
-- pins rotation for the whole queue, so it must be visible. While a resize is in progress both
-- sets show: the old slots (slot_set 'old', blocked_by says what keeps each from the seal) and
-- the new ones ('new', waiting at the seal). lease_owner shows live leases only.
-- pending_events counts the queue's events since the slot's cursor up to the last tick (all hash
-- classes, an estimate); 0 means the slot is caught up. Events after the last tick are in no
-- batch yet: unticked_events counts them (the queue's, the same on every row) and ticker_lag is
-- the last tick's age, so a dead ticker shows as unticked_events growing with ticker_lag, where
-- pending_events alone would read 0. pending_events is PgQ's figure and includes the ids a
-- forced tick drew (force_next_tick); backlog_events is the same count without them, the
-- figure to watch (the connectors' lag metrics read it).
CREATE OR REPLACE VIEW pgque.partition_slot_status AS
SELECT q.queue_name,
       pc.co_name AS consumer,
       g.slot,
       g.n,
       CASE WHEN ps.lease_until > clock_timestamp() THEN ps.lease_owner END AS lease_owner,
       ps.lease_until,
       coalesce(ps.epoch, 0) AS epoch,
       s.sub_last_tick AS last_tick,
       greatest(lt.tick_event_seq - ct.tick_event_seq, 0) AS pending_events,
       g.slot_set,
       pc.resize_state,
       pc.epoch AS resize_epoch,
       CASE WHEN pc.resize_state = 'draining' THEN pc.n END AS old_n,
       pc.n_next AS new_n,
       pc.seal_tick,
       CASE WHEN g.slot_set <> 'old' THEN NULL
            WHEN s.sub_id IS NULL THEN 'not subscribed'
            WHEN s.sub_batch IS NOT NULL THEN 'batch ' || s.sub_batch || ' is open'
            WHEN s.sub_last_tick < pc.seal_tick THEN 'cursor at tick ' || s.sub_last_tick || ', seal at tick ' || pc.seal_tick
       END AS blocked_by,
       tb.unticked_events,
       tb.ticker_lag,
       greatest((lt.tick_event_seq - lt.tick_forced_ids) - (ct.tick_event_seq - ct.tick_forced_ids), 0) AS backlog_events
  FROM pgque.partition_consumer pc
  JOIN pgque.queue q ON q.queue_id = pc.queue_id
 CROSS JOIN LATERAL pgque.tick_backlog(q.queue_id) tb
 CROSS JOIN LATERAL (
        SELECT k, pc.n, CASE WHEN pc.resize_state = 'draining' THEN 'old' ELSE 'current' END
          FROM generate_series(0, pc.n - 1) k
        UNION ALL
        SELECT k, pc.n_next, 'new'
          FROM generate_series(0, coalesce(pc.n_next, 0) - 1) k
         WHERE pc.resize_state = 'draining'
       ) AS g(slot, n, slot_set)
  LEFT JOIN pgque.partition_slot ps
         ON ps.queue_id = pc.queue_id AND ps.co_name = pc.co_name AND ps.slot = g.slot AND g.slot_set <> 'new'
  LEFT JOIN pgque.consumer c ON c.co_name = pgque.slot_consumer_name(pc.co_name, g.slot, g.n)
  LEFT JOIN pgque.subscription s ON s.sub_queue = pc.queue_id AND s.sub_consumer = c.co_id
  LEFT JOIN pgque.tick ct ON ct.tick_queue = pc.queue_id AND ct.tick_id = s.sub_last_tick
  LEFT JOIN LATERAL (SELECT t.tick_event_seq, t.tick_forced_ids FROM pgque.tick t WHERE t.tick_queue = pc.queue_id
                      ORDER BY t.tick_id DESC LIMIT 1) lt ON true;

-- Internal: the subscription names of slots 0..n-1.
CREATE OR REPLACE FUNCTION pgque.slot_consumer_names(i_consumer text, i_n int)
RETURNS text[]
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT ARRAY(SELECT pgque.slot_consumer_name(i_consumer, k, i_n) FROM generate_series(0, i_n - 1) k)
$$;

-- Internal: the last tick a slot subscription may open a batch to: the seal while its consumer
-- is being resized (old slots drain up to it, new slots wait at it), NULL otherwise.
CREATE OR REPLACE FUNCTION pgque.resize_tick_cap(i_queue_id int4, i_consumer_name text)
RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (SELECT pc.seal_tick FROM pgque.partition_consumer pc
             WHERE pc.queue_id = i_queue_id AND pc.co_name = split_part(i_consumer_name, '#', 1)
               AND pc.resize_state = 'draining');
END
$$;

-- Internal: the old-slot subscriptions of the queue's consumers being resized. Their retries
-- stay in retry_queue until the resize ends: moved into the event table now, they would land
-- after the seal, which old slots never read and new slots do not own -- lost.
CREATE OR REPLACE FUNCTION pgque.resize_held_retry_owners(i_queue_id int4)
RETURNS int4[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT coalesce(array_agg(s.sub_id), '{}')
      FROM pgque.partition_consumer pc
      JOIN pgque.consumer c ON c.co_name = ANY (pgque.slot_consumer_names(pc.co_name, pc.n))
      JOIN pgque.subscription s ON s.sub_consumer = c.co_id AND s.sub_queue = pc.queue_id
     WHERE pc.queue_id = i_queue_id AND pc.resize_state = 'draining'
$$;

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
CREATE OR REPLACE FUNCTION pgque.resize_lock(i_queue pgque.queue, i_consumer text)
RETURNS pgque.partition_consumer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    pc pgque.partition_consumer;
BEGIN
    PERFORM pgque.partition_pinned_n(i_queue, i_consumer);
    SELECT * INTO pc FROM pgque.partition_consumer
     WHERE queue_id = i_queue.queue_id AND co_name = i_consumer FOR UPDATE;
    IF NOT FOUND THEN
        -- Unsubscribed while we waited for its row.
        PERFORM pgque.partition_pinned_n(i_queue, i_consumer);
    END IF;
    RETURN pc;
END
$$;

-- Internal: resize_lock for complete and abort, which need a resize in progress.
CREATE OR REPLACE FUNCTION pgque.resize_lock_draining(i_queue pgque.queue, i_consumer text)
RETURNS pgque.partition_consumer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    pc pgque.partition_consumer := pgque.resize_lock(i_queue, i_consumer);
BEGIN
    IF pc.resize_state <> 'draining' THEN
        RAISE EXCEPTION 'consumer % of queue % is not being resized', i_consumer, i_queue.queue_name USING ERRCODE = '55000';
    END IF;
    RETURN pc;
END
$$;

-- Internal: called where a caller's N does not match the pinned one. When that N is the next
-- slot set of a resize in progress, or the set a completed resize retired, says so (PQ011), so
-- that a worker knows to switch sets rather than suspect its configuration. Otherwise returns
-- and the caller raises its plain mismatch error.
CREATE OR REPLACE FUNCTION pgque.resize_check_n(i_queue pgque.queue, i_consumer text, i_n int)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    pc pgque.partition_consumer;
BEGIN
    SELECT * INTO pc FROM pgque.partition_consumer WHERE queue_id = i_queue.queue_id AND co_name = i_consumer;
    IF NOT FOUND OR i_n IS NULL OR i_n = pc.n THEN
        RETURN;
    END IF;
    IF pc.resize_state = 'draining' AND i_n = pc.n_next THEN
        RAISE EXCEPTION 'consumer % of queue % is being resized from % to % slots; the % new slots open once pgque.complete_resize() has run',
            i_consumer, i_queue.queue_name, pc.n, pc.n_next, pc.n_next USING ERRCODE = 'PQ011';
    END IF;
    IF i_n = pc.n_prev THEN
        RAISE EXCEPTION 'slot set n=% of consumer % on queue % was retired by a resize to n=% (resize epoch %); its leases are void: claim slots of the n=% set',
            i_n, i_consumer, i_queue.queue_name, pc.n, pc.epoch, pc.n USING ERRCODE = 'PQ011';
    END IF;
END
$$;

-- Internal: for unsubscribe_partitioned: drops the new slot set of a resize in progress.
CREATE OR REPLACE FUNCTION pgque.resize_forget(i_queue pgque.queue, i_consumer text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_name text;
BEGIN
    FOR v_name IN SELECT unnest(pgque.slot_consumer_names(pc.co_name, pc.n_next))
                    FROM pgque.partition_consumer pc
                   WHERE pc.queue_id = i_queue.queue_id AND pc.co_name = i_consumer AND pc.resize_state = 'draining' LOOP
        PERFORM pgque.unregister_subscription(i_queue.queue_name, v_name);
    END LOOP;
END
$$;

-- Internal: true while the consumer is being resized.
CREATE OR REPLACE FUNCTION pgque.resize_in_progress(i_queue_id int4, i_consumer text)
RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM pgque.partition_consumer
                    WHERE queue_id = i_queue_id AND co_name = i_consumer AND resize_state = 'draining')
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
    v_seal := pgque.insert_tick(q.queue_id);
    UPDATE pgque.partition_consumer
       SET resize_state = 'draining', n_next = i_new_n, seal_tick = v_seal, resize_started = now()
     WHERE queue_id = q.queue_id AND co_name = i_consumer;
    FOR k IN 0 .. i_new_n - 1 LOOP
        PERFORM pgque.register_subscription(i_queue, v_names[k + 1], v_seal);
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
    RETURN pgque.resize_in_progress(q.queue_id, i_consumer)
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

    -- New lease rows start above every old epoch, so lease epochs stay usable as fencing tokens
    -- across the switch.
    SELECT max(epoch) INTO v_lease_epoch FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer;
    DELETE FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer;
    FOR k IN 0 .. pc.n - 1 LOOP
        PERFORM pgque.unregister_subscription(i_queue, v_old[k + 1]);
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
    PERFORM pgque.resize_forget(q, i_consumer);
    UPDATE pgque.partition_consumer
       SET n_next = NULL, seal_tick = NULL, resize_state = 'stable', resize_started = NULL
     WHERE queue_id = q.queue_id AND co_name = i_consumer;
    RETURN pc.n;
END
$$;

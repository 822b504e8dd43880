--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: N hash slots per logical consumer, each an ordinary subscription named
-- "<consumer>#<k>/<N>" with its own cursor, each claimed by one worker at a time under a lease.
-- Per-key order holds because every event of a key lands in one slot and a slot has one
-- reader. Reader role.
--
-- Layer: mode (README.md), in six files: this one (the tables, slot names, the checks and the
-- consumer's slot-set state that every other reads), 56_partition_subscribe.sql,
-- 57_partition_lease.sql, 57_partition_pause.sql (the pause failure policy),
-- 58_partition_read.sql (read, ack, nack) and 59_partition_read_ahead.sql, each calling only the
-- core (20_queue.sql to 51_retry.sql) and the partition files before it. 60_resize.sql builds on
-- all six. Fills the core's hooks
-- hook_batch_end_cap (50_batch.sql) and hook_retry_held_owners (51_retry.sql). The hash of a
-- partition key, pgque.slot_of(), is the core's (47_window.sql): the core reads a window one hash
-- class at a time.

-- One row per partitioned consumer: its pinned N and its slot-set state, which a resize
-- (60_resize.sql) changes and every partition function reads: resize_state 'draining' while the
-- N slots drain up to the seal tick and the n_next new ones wait at it; epoch counts completed
-- resizes, n_prev is the N that the last one retired.
CREATE TABLE IF NOT EXISTS pgque.partition_consumer (
    queue_id int4 NOT NULL REFERENCES pgque.queue (queue_id) ON DELETE CASCADE,
    co_name  text NOT NULL,
    n        int4 NOT NULL CHECK (n BETWEEN 1 AND 256),
    PRIMARY KEY (queue_id, co_name)
);
-- The slot-set state came with online resizing; an engine from before it gets the columns here.
CALL pg_temp.pgque_add_column('pgque.partition_consumer', 'epoch', 'bigint NOT NULL DEFAULT 0');
CALL pg_temp.pgque_add_column('pgque.partition_consumer', 'resize_state',
    $$text NOT NULL DEFAULT 'stable' CHECK (resize_state IN ('stable', 'draining'))$$);
CALL pg_temp.pgque_add_column('pgque.partition_consumer', 'n_next', 'int4 CHECK (n_next BETWEEN 1 AND 256)');
CALL pg_temp.pgque_add_column('pgque.partition_consumer', 'seal_tick', 'bigint');
CALL pg_temp.pgque_add_column('pgque.partition_consumer', 'n_prev', 'int4');
CALL pg_temp.pgque_add_column('pgque.partition_consumer', 'resize_started', 'timestamptz');

-- One lease row per subscribed slot (57_partition_lease.sql).
CREATE TABLE IF NOT EXISTS pgque.partition_slot (
    queue_id    int4 NOT NULL,
    co_name     text NOT NULL,
    slot        int4 NOT NULL,
    lease_owner text,
    lease_until timestamptz,
    lease_ttl   interval,
    epoch       bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (queue_id, co_name, slot),
    FOREIGN KEY (queue_id, co_name) REFERENCES pgque.partition_consumer (queue_id, co_name) ON DELETE CASCADE
);
-- Who holds a lease is proven, not named: lease_owner keeps only the label of the holder's
-- worker id (what partition_slot_status and error texts show), lease_key the SHA-256 of the whole
-- id and lease_role the login that claimed it (57_partition_lease.sql, slot_lease_holder). A
-- worker id of the form <label>|<secret> is therefore a credential no other reader can learn from
-- the engine. Leases an engine before these columns granted have none and are held by name until
-- their holder next claims or renews them.
CALL pg_temp.pgque_add_column('pgque.partition_slot', 'lease_key', 'bytea');
CALL pg_temp.pgque_add_column('pgque.partition_slot', 'lease_role', 'name');
-- Since when the slot's lease stands as it is: when its holder took it over (claim_slot), or when
-- the last holder gave it back (release_slot); a new slot row, since its creation. Monitoring reads
-- how long a slot has had a holder, or none (84_status.sql). Rows of an engine from before it start
-- at the upgrade. The default is now(), not clock_timestamp(): a volatile default would rewrite
-- the table, under its strongest lock, when an upgrade adds the column.
CALL pg_temp.pgque_add_column('pgque.partition_slot', 'lease_since', 'timestamptz NOT NULL DEFAULT now()');

-- The subscription name of slot i_slot of i_n. The numbers are cast to text first: text || int
-- is only STABLE, and an IMMUTABLE function whose body is not immutable is never inlined (it was
-- parsed and planned on every call).
CREATE OR REPLACE FUNCTION pgque.slot_consumer_name(i_consumer text, i_slot int, i_n int)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT i_consumer || '#' || i_slot::text || '/' || i_n::text
$$;

-- Internal: the subscription names of slots 0..n-1.
CREATE OR REPLACE FUNCTION pgque.slot_consumer_names(i_consumer text, i_n int)
RETURNS text[]
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT ARRAY(SELECT pgque.slot_consumer_name(i_consumer, k, i_n) FROM generate_series(0, i_n - 1) k)
$$;

-- Internal: checks names and returns the queue.
CREATE OR REPLACE FUNCTION pgque.partition_check_names(i_queue text, i_consumer text)
RETURNS pgque.queue
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
BEGIN
    IF i_queue IS NULL OR i_queue = '' THEN
        RAISE EXCEPTION 'queue name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_consumer IS NULL OR i_consumer = '' THEN
        RAISE EXCEPTION 'consumer name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF position('#' IN i_consumer) > 0 THEN
        RAISE EXCEPTION 'partitioned consumer name must not contain #: %', i_consumer USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
            DETAIL = '# separates a partitioned consumer''s name from its slot number.';
    END IF;
    RETURN pgque.queue_row(i_queue);
END
$$;

-- Internal: the pinned N of a partitioned consumer, or a PQ006 error.
CREATE OR REPLACE FUNCTION pgque.partition_pinned_n(i_q pgque.queue, i_consumer text)
RETURNS int4
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
DECLARE
    v_n int4;
BEGIN
    SELECT n INTO v_n FROM pgque.partition_consumer WHERE queue_id = i_q.queue_id AND co_name = i_consumer;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'consumer % on queue % is not a partitioned consumer; call pgque.subscribe_slot() first',
            i_consumer, i_q.queue_name USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006',
            HINT = 'pgque.subscribe_partitioned() subscribes all slots at one tick.';
    END IF;
    RETURN v_n;
END
$$;

-- Internal: refuses a slot number outside 0..n-1 (naming the consumer when one is given).
CREATE OR REPLACE FUNCTION pgque.slot_check_range(i_slot int, i_n int, i_consumer text, i_queue text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_slot IS NULL OR i_slot < 0 OR i_slot >= i_n THEN
        IF i_consumer IS NULL THEN
            RAISE EXCEPTION 'slot % out of range for n=% (valid: 0..%)', i_slot, i_n, i_n - 1 USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
        END IF;
        RAISE EXCEPTION 'slot % out of range for consumer % on queue % (valid: 0..%)', i_slot, i_consumer, i_queue, i_n - 1
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
END
$$;

-- Internal: pins N for the consumer (first caller wins, race-free) or checks it.
CREATE OR REPLACE FUNCTION pgque.partition_pin(i_q pgque.queue, i_consumer text, i_n int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_pinned int4;
BEGIN
    IF i_n IS NULL OR i_n < 1 THEN
        RAISE EXCEPTION 'slot count n must be >= 1, got %', i_n USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_n > 256 THEN
        RAISE EXCEPTION 'slot count n must be <= 256, got %', i_n USING ERRCODE = '22023';
    END IF;
    INSERT INTO pgque.partition_consumer (queue_id, co_name, n) VALUES (i_q.queue_id, i_consumer, i_n)
    ON CONFLICT (queue_id, co_name) DO UPDATE SET n = pgque.partition_consumer.n
    RETURNING n INTO v_pinned;
    IF v_pinned <> i_n THEN
        RAISE EXCEPTION 'consumer % on queue % is pinned to n=%; got n=% (unsubscribe all slots to change the slot count)',
            i_consumer, i_q.queue_name, v_pinned, i_n USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
END
$$;

-- Internal: true while the consumer is being resized (its slot set drains to the seal).
CREATE OR REPLACE FUNCTION pgque.partition_resizing(i_queue_id int4, i_consumer text)
RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM pgque.partition_consumer
                    WHERE queue_id = i_queue_id AND co_name = i_consumer AND resize_state = 'draining')
$$;

-- Internal: called where a caller's N does not match the pinned one. When that N is the next
-- slot set of a resize in progress, or the set a completed resize retired, says so (PQ011), so
-- that a worker knows to switch sets rather than suspect its configuration. Otherwise returns
-- and the caller raises its plain mismatch error.
CREATE OR REPLACE FUNCTION pgque.partition_check_n(i_q pgque.queue, i_consumer text, i_n int)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    pc pgque.partition_consumer;
BEGIN
    SELECT * INTO pc FROM pgque.partition_consumer WHERE queue_id = i_q.queue_id AND co_name = i_consumer;
    IF NOT FOUND OR i_n IS NULL OR i_n = pc.n THEN
        RETURN;
    END IF;
    IF pc.resize_state = 'draining' AND i_n = pc.n_next THEN
        RAISE EXCEPTION 'consumer % of queue % is being resized from % to % slots; the % new slots open once pgque.complete_resize() has run',
            i_consumer, i_q.queue_name, pc.n, pc.n_next, pc.n_next USING ERRCODE = 'PQ011';
    END IF;
    IF i_n = pc.n_prev THEN
        RAISE EXCEPTION 'slot set n=% of consumer % on queue % was retired by a resize to n=% (resize epoch %); its leases are void: claim slots of the n=% set',
            i_n, i_consumer, i_q.queue_name, pc.n, pc.epoch, pc.n USING ERRCODE = 'PQ011';
    END IF;
END
$$;

-- Fills hook_batch_end_cap (50_batch.sql): the last tick a slot subscription may open a batch
-- to is the seal while its consumer is being resized (old slots drain up to it, new slots wait
-- at it); no limit otherwise. The read-ahead functions (59_partition_read_ahead.sql) ask it too.
CREATE OR REPLACE FUNCTION pgque.hook_batch_end_cap(i_queue_id int4, i_consumer text)
RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
BEGIN
    RETURN (SELECT pc.seal_tick FROM pgque.partition_consumer pc
             WHERE pc.queue_id = i_queue_id AND pc.co_name = split_part(i_consumer, '#', 1)
               AND pc.resize_state = 'draining');
END
$$;

-- Fills hook_retry_held_owners (51_retry.sql): the old-slot subscriptions of the queue's
-- consumers being resized. Their retries stay in retry_queue until the resize ends: moved into
-- the event table now, they would land after the seal, which old slots never read and new slots
-- do not own -- lost.
CREATE OR REPLACE FUNCTION pgque.hook_retry_held_owners(i_queue_id int4)
RETURNS int4[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT coalesce(array_agg(s.sub_id), '{}')
      FROM pgque.partition_consumer pc
      JOIN pgque.consumer c ON c.co_name = ANY (pgque.slot_consumer_names(pc.co_name, pc.n))
      JOIN pgque.subscription s ON s.sub_consumer = c.co_id AND s.sub_queue = pc.queue_id
     WHERE pc.queue_id = i_queue_id AND pc.resize_state = 'draining'
$$;

-- Monitoring (reader): one row per slot of every partitioned consumer, also for slots nobody polls: an unpolled slot
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
CALL pg_temp.pgque_define_view('pgque.partition_slot_status', $view$
SELECT q.queue_name,
       pc.co_name AS consumer,
       g.slot,
       g.n,
       CASE WHEN ps.lease_until > clock_timestamp() THEN ps.lease_owner END AS lease_owner,
       ps.lease_until,
       coalesce(ps.epoch, 0) AS epoch,
       s.sub_last_tick AS last_tick,
       CASE WHEN s.sub_id IS NOT NULL THEN greatest(lt.tick_event_seq - ct.tick_event_seq, 0) END AS pending_events,
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
       CASE WHEN s.sub_id IS NOT NULL
            THEN greatest((lt.tick_event_seq - lt.tick_forced_ids) - (ct.tick_event_seq - ct.tick_forced_ids), 0)
       END AS backlog_events,
       s.sub_id IS NOT NULL AS subscribed
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
                      ORDER BY t.tick_id DESC LIMIT 1) lt ON true
$view$);

--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: N hash slots per logical consumer, each an ordinary subscription named
-- "<consumer>#<k>/<N>" with its own cursor, each claimed by one worker at a time under a lease.
-- Per-key order holds because every event of a key lands in one slot and a slot has one
-- reader. Reader role.

CREATE TABLE IF NOT EXISTS pgque.partition_consumer (
    queue_id int4 NOT NULL REFERENCES pgque.queue (queue_id) ON DELETE CASCADE,
    co_name  text NOT NULL,
    n        int4 NOT NULL CHECK (n BETWEEN 1 AND 256),
    PRIMARY KEY (queue_id, co_name)
);

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

-- The hash slot of a partition key among n slots: sign-normalised, NULL key in slot 0.
-- hashtextextended (not hashtext) because its values are stable across PostgreSQL majors.
-- No SET clause and fully qualified names, so the planner can inline it into batch reads
-- (50_batch.sql calls it from dynamic SQL, resolved at run time).
CREATE OR REPLACE FUNCTION pgque.slot_of(i_key text, i_n int)
RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN i_key IS NULL THEN 0
                ELSE ((pg_catalog.hashtextextended(i_key, 0) % i_n + i_n) % i_n)::int END
$$;

-- The numbers are cast to text first: text || int is only STABLE, and an IMMUTABLE function
-- whose body is not immutable is never inlined (it was parsed and planned on every call).
CREATE OR REPLACE FUNCTION pgque.slot_consumer_name(i_consumer text, i_slot int, i_n int)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT i_consumer || '#' || i_slot::text || '/' || i_n::text
$$;

-- Internal: checks names and returns the queue.
CREATE OR REPLACE FUNCTION pgque.partition_check_names(i_queue text, i_consumer text)
RETURNS pgque.queue
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
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
    RETURN pgque.find_queue(i_queue);
END
$$;

-- Internal: the pinned N of a partitioned consumer, or a PQ006 error.
CREATE OR REPLACE FUNCTION pgque.partition_pinned_n(i_queue pgque.queue, i_consumer text)
RETURNS int4
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_n int4;
BEGIN
    SELECT n INTO v_n FROM pgque.partition_consumer WHERE queue_id = i_queue.queue_id AND co_name = i_consumer;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'consumer % on queue % is not a partitioned consumer; call pgque.subscribe_slot() first',
            i_consumer, i_queue.queue_name USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006',
            HINT = 'pgque.subscribe_partitioned() subscribes all slots at one tick.';
    END IF;
    RETURN v_n;
END
$$;

-- Internal: refuses a slot number outside 0..n-1 (naming the consumer when one is given).
DROP FUNCTION IF EXISTS pgque.check_slot(int, int);
CREATE OR REPLACE FUNCTION pgque.check_slot(i_slot int, i_n int, i_consumer text, i_queue text)
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
CREATE OR REPLACE FUNCTION pgque.partition_pin(i_queue pgque.queue, i_consumer text, i_n int)
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
    INSERT INTO pgque.partition_consumer (queue_id, co_name, n) VALUES (i_queue.queue_id, i_consumer, i_n)
    ON CONFLICT (queue_id, co_name) DO UPDATE SET n = pgque.partition_consumer.n
    RETURNING n INTO v_pinned;
    IF v_pinned <> i_n THEN
        RAISE EXCEPTION 'consumer % on queue % is pinned to n=%; got n=% (unsubscribe all slots to change the slot count)',
            i_consumer, i_queue.queue_name, v_pinned, i_n USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.subscribe_slot(i_queue text, i_consumer text, i_slot int, i_n int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
BEGIN
    PERFORM pgque.partition_pin(q, i_consumer, i_n);
    PERFORM pgque.check_slot(i_slot, i_n, NULL, NULL);
    PERFORM pgque.register_subscription(i_queue, pgque.slot_consumer_name(i_consumer, i_slot, i_n), NULL);
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
    IF pgque.resize_in_progress(q.queue_id, i_consumer) THEN
        RETURN; -- set up already; its new slot set is the resize's (56_resize.sql)
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
        PERFORM pgque.register_subscription(i_queue, pgque.slot_consumer_name(i_consumer, k, i_n), v_tick);
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
    PERFORM pgque.check_slot(i_slot, v_n, i_consumer, i_queue);
    PERFORM pgque.unregister_subscription(i_queue, pgque.slot_consumer_name(i_consumer, i_slot, v_n));
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
        PERFORM pgque.unregister_subscription(i_queue, pgque.slot_consumer_name(i_consumer, k, v_n));
    END LOOP;
    PERFORM pgque.resize_forget(q, i_consumer);
    DELETE FROM pgque.partition_consumer WHERE queue_id = q.queue_id AND co_name = i_consumer;
END
$$;

-- Takes or renews the lease on one slot. Returns the lease epoch, or NULL when another live
-- worker holds it or the slot row is busy (never waits: a worker simply tries the next slot).
-- The epoch grows on every takeover, so side effects stamped with it expose zombies.
CREATE OR REPLACE FUNCTION pgque.claim_slot(i_queue text, i_consumer text, i_slot int, i_worker text,
    i_ttl interval DEFAULT '30 seconds')
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_n int4;
    r pgque.partition_slot;
    v_now timestamptz;
BEGIN
    IF i_worker IS NULL OR i_worker = '' THEN
        RAISE EXCEPTION 'worker id must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_ttl IS NULL OR NOT isfinite(i_ttl) OR i_ttl < interval '1 second' THEN
        RAISE EXCEPTION 'lease ttl must be >= 1 second, got %', i_ttl USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
            DETAIL = 'The lease TTL must also be finite.';
    END IF;
    q := pgque.partition_check_names(i_queue, i_consumer);
    v_n := pgque.partition_pinned_n(q, i_consumer);
    PERFORM pgque.check_slot(i_slot, v_n, i_consumer, i_queue);
    SELECT * INTO r FROM pgque.partition_slot
     WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot
       FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        PERFORM 1 FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot;
        IF FOUND THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'slot % of consumer % on queue % is not subscribed; call pgque.subscribe_slot()', i_slot, i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    v_now := clock_timestamp();
    IF r.lease_owner = i_worker THEN
        UPDATE pgque.partition_slot SET lease_until = v_now + i_ttl, lease_ttl = i_ttl
         WHERE queue_id = r.queue_id AND co_name = r.co_name AND slot = r.slot;
        RETURN r.epoch;
    END IF;
    IF r.lease_owner IS NULL OR r.lease_until <= v_now THEN
        UPDATE pgque.partition_slot
           SET lease_owner = i_worker, lease_until = v_now + i_ttl, lease_ttl = i_ttl, epoch = epoch + 1
         WHERE queue_id = r.queue_id AND co_name = r.co_name AND slot = r.slot;
        RETURN r.epoch + 1;
    END IF;
    RETURN NULL;
END
$$;

-- Gives the lease back, only at a batch boundary: releasing with a batch open would let a
-- successor process events this worker may still be working on.
CREATE OR REPLACE FUNCTION pgque.release_slot(i_queue text, i_consumer text, i_slot int, i_worker text)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    v_n int4 := pgque.partition_pinned_n(q, i_consumer);
    r pgque.partition_slot;
    v_batch bigint;
BEGIN
    SELECT * INTO r FROM pgque.partition_slot
     WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot
       FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % is not subscribed; call pgque.subscribe_slot()', i_slot, i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    IF r.lease_owner IS DISTINCT FROM i_worker THEN
        RETURN false;
    END IF;
    v_batch := (pgque.lock_subscription(q.queue_id, pgque.slot_consumer_name(i_consumer, i_slot, v_n))).sub_batch;
    IF v_batch IS NOT NULL THEN
        RAISE EXCEPTION 'cannot release slot % of consumer % while batch % is open; ack the batch first',
            i_slot, i_consumer, v_batch USING ERRCODE = '55000';
    END IF;
    UPDATE pgque.partition_slot SET lease_owner = NULL, lease_until = NULL, lease_ttl = NULL
     WHERE queue_id = r.queue_id AND co_name = r.co_name AND slot = r.slot;
    RETURN true;
END
$$;

-- Internal: the guard in front of every slot read and ack. Checks the set-up (N before any
-- lease check, so a misconfigured caller learns about N), then that i_worker holds the lease;
-- with i_renew it renews the lease and locks the slot's subscription (the receive lock), without
-- it neither: a read that opens nothing and may run beside the worker's own acks and renewals.
-- Returns the slot subscription.
CREATE OR REPLACE FUNCTION pgque.slot_check(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text,
    i_renew boolean)
RETURNS pgque.subscription
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_n int4;
    r pgque.partition_slot;
    s pgque.subscription;
BEGIN
    IF i_slot IS NULL OR i_n IS NULL OR i_worker IS NULL THEN
        RAISE EXCEPTION 'queue, consumer, slot, and n must not be null' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_worker IS NULL OR i_worker = '' THEN
        RAISE EXCEPTION 'worker id must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    q := pgque.partition_check_names(i_queue, i_consumer);
    v_n := pgque.partition_pinned_n(q, i_consumer);
    IF v_n <> i_n THEN
        PERFORM pgque.resize_check_n(q, i_consumer, i_n);
        RAISE EXCEPTION 'wrong slot count for consumer % on queue %: pinned n=%, caller passed n=%',
            i_consumer, i_queue, v_n, i_n USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    PERFORM pgque.check_slot(i_slot, v_n, i_consumer, i_queue);
    IF i_renew THEN
        SELECT * INTO r FROM pgque.partition_slot
         WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot
           FOR UPDATE;
    ELSE
        SELECT * INTO r FROM pgque.partition_slot
         WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot;
    END IF;
    IF NOT FOUND THEN
        -- A resize may have retired the slot while we waited for its row.
        PERFORM pgque.resize_check_n(q, i_consumer, i_n);
        RAISE EXCEPTION 'slot % of consumer % on queue % is not subscribed; call pgque.subscribe_slot()', i_slot, i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    IF r.lease_owner IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % is not leased; call pgque.claim_slot() first',
            i_slot, i_consumer, i_queue USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ005';
    END IF;
    IF r.lease_owner <> i_worker THEN
        RAISE EXCEPTION 'lease on slot % of consumer % on queue % is held by worker %, not %; fenced',
            i_slot, i_consumer, i_queue, r.lease_owner, i_worker USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ004';
    END IF;
    IF i_renew THEN
        -- Every read and ack renews; an expired lease nobody took over is simply renewed.
        UPDATE pgque.partition_slot SET lease_until = clock_timestamp() + lease_ttl
         WHERE queue_id = r.queue_id AND co_name = r.co_name AND slot = r.slot;
        s := pgque.lock_subscription(q.queue_id, pgque.slot_consumer_name(i_consumer, i_slot, v_n));
    ELSE
        SELECT sub.* INTO s FROM pgque.subscription sub JOIN pgque.consumer c ON c.co_id = sub.sub_consumer
         WHERE sub.sub_queue = q.queue_id AND c.co_name = pgque.slot_consumer_name(i_consumer, i_slot, v_n);
    END IF;
    IF s.sub_id IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % is not subscribed; call pgque.subscribe_slot()', i_slot, i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    RETURN s;
END
$$;

CREATE OR REPLACE FUNCTION pgque.slot_guard(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text)
RETURNS pgque.subscription
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.slot_check(i_queue, i_consumer, i_slot, i_n, i_worker, true);
END
$$;

-- (addition) receive_partitioned for a reader that may fall behind: a slot whose cursor is
-- several ticks back gets one batch over as many of them as hold at most i_window_events events
-- of the queue (the slot's share is about 1/N of those), at least one tick; NULL is one tick per
-- batch, as receive_partitioned. Fewer, larger batches while catching up; one tick each when not.
-- The body is here, not behind a shared internal function: every set-returning layer copies the
-- page once more, and this is the connector's read path.
CREATE OR REPLACE FUNCTION pgque.receive_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_max int, i_window_events bigint)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_batch bigint;
BEGIN
    IF i_max IS NULL OR i_max < 1 THEN
        RAISE EXCEPTION 'pgque.receive_partitioned: max must be >= 1, got %', i_max USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_window_events < 1 THEN
        RAISE EXCEPTION 'pgque.receive_partitioned: window_events must be >= 1 or NULL, got %', i_window_events
            USING ERRCODE = '22023';
    END IF;
    PERFORM pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
    SELECT b.batch_id INTO v_batch
      FROM pgque.open_batch(i_queue, pgque.slot_consumer_name(i_consumer, i_slot, i_n), NULL, NULL, NULL,
                            i_window_events) b;
    IF v_batch IS NULL THEN
        RETURN;
    END IF;
    -- first_page, the scan run here: no set-returning layer between it and the reader.
    RETURN QUERY EXECUTE pgque.batch_scan_sql(v_batch, NULL, i_max, i_slot, i_n, true);
    IF NOT FOUND THEN
        PERFORM pgque.close_batch(v_batch);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.receive_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_max int DEFAULT 100)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY SELECT * FROM pgque.receive_partitioned(i_queue, i_consumer, i_slot, i_n, i_worker, i_max, NULL::bigint);
END
$$;

CREATE OR REPLACE FUNCTION pgque.read_batch_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_after_msg_id bigint, i_max int DEFAULT 1000)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
BEGIN
    IF i_max IS NULL OR i_max < 1 THEN
        RAISE EXCEPTION 'pgque.read_batch_partitioned: max must be >= 1, got %', i_max USING ERRCODE = '22023';
    END IF;
    s := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % has no open batch', i_slot, i_consumer, i_queue USING ERRCODE = 'PQ003';
    END IF;
    RETURN QUERY EXECUTE pgque.batch_scan_sql(s.sub_batch, i_after_msg_id, i_max, i_slot, i_n, true);
END
$$;

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
    s pgque.subscription := pgque.slot_check(i_queue, i_consumer, i_slot, i_n, i_worker, false);
    w record := pgque.read_ahead_ticks(s, i_consumer, i_batch_id, i_window_events);
BEGIN
    IF w.to_tick IS NOT NULL THEN
        batch_id := nextval('pgque.batch_id_seq');
        from_tick := w.from_tick;
        to_tick := w.to_tick;
    END IF;
END
$$;

-- Internal: the ticks of the batch after s's open batch i_batch_id (see read_ahead_window);
-- NULLs when there is none.
CREATE OR REPLACE FUNCTION pgque.read_ahead_ticks(s pgque.subscription, i_consumer text, i_batch_id bigint,
    i_window_events bigint, OUT from_tick bigint, OUT to_tick bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    w record := pgque.read_ahead_ticks_after(s, i_consumer, i_batch_id, NULL, i_window_events);
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
CREATE OR REPLACE FUNCTION pgque.read_ahead_ticks_after(s pgque.subscription, i_consumer text, i_batch_id bigint,
    i_after_tick bigint, i_window_events bigint, OUT from_tick bigint, OUT to_tick bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_last pgque.tick;
    v_next pgque.tick;
BEGIN
    IF i_window_events < 1 THEN
        RAISE EXCEPTION 'pgque read-ahead: window_events must be >= 1 or NULL, got %', i_window_events
            USING ERRCODE = '22023';
    END IF;
    IF s.sub_batch IS DISTINCT FROM i_batch_id THEN
        RETURN; -- not the open batch (any more): nothing to read ahead of
    END IF;
    IF i_after_tick < s.sub_next_tick THEN
        RAISE EXCEPTION 'pgque.read_ahead_after_query: tick % is before the end of open batch % (tick %)',
            i_after_tick, i_batch_id, s.sub_next_tick USING ERRCODE = '22023';
    END IF;
    SELECT * INTO v_last FROM pgque.tick
     WHERE tick_queue = s.sub_queue AND tick_id = coalesce(i_after_tick, s.sub_next_tick);
    v_next := pgque.next_batch_end(v_last, NULL, NULL, NULL, pgque.resize_tick_cap(s.sub_queue, i_consumer),
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
    s pgque.subscription := pgque.slot_check(i_queue, i_consumer, i_slot, i_n, i_worker, false);
    w record := pgque.read_ahead_ticks_after(s, i_consumer, i_batch_id, i_after_tick, i_window_events);
BEGIN
    IF w.to_tick IS NULL THEN
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
    s := pgque.slot_check(i_queue, i_consumer, i_slot, i_n, i_worker, false);
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
    IF s.sub_last_tick IS DISTINCT FROM i_from_tick OR i_to_tick IS NULL OR i_to_tick <= i_from_tick
       OR i_to_tick > pgque.resize_tick_cap(s.sub_queue, i_consumer)
       OR NOT EXISTS (SELECT 1 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = i_to_tick) THEN
        RETURN false;
    END IF;
    UPDATE pgque.subscription
       SET sub_batch = i_batch_id, sub_next_tick = i_to_tick, sub_active = now()
     WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
    RETURN true;
END
$$;

CREATE OR REPLACE FUNCTION pgque.ack_partitioned(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NULL THEN
        RETURN 0;
    END IF;
    RETURN pgque.close_batch(s.sub_batch);
END
$$;

-- Acks the slot's open batch only if it is i_batch_id: a reader whose earlier ack (and the
-- receive in the same transaction) committed without it hearing back must not finish the next
-- batch, which it has not seen. 0 when the slot has no open batch or another one.
CREATE OR REPLACE FUNCTION pgque.ack_partitioned(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text,
    i_batch_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS DISTINCT FROM i_batch_id THEN
        RETURN 0;
    END IF;
    RETURN pgque.close_batch(s.sub_batch);
END
$$;

CREATE OR REPLACE FUNCTION pgque.nack_partitioned(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text,
    i_msg pgque.message, i_retry_after interval DEFAULT '60 seconds', i_reason text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % has no open batch to nack', i_slot, i_consumer, i_queue USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    RETURN pgque.nack_core(s.sub_batch, (i_msg).msg_id, i_retry_after, i_reason, i_slot, i_n);
END
$$;

-- (addition) Dead-letters one event of the slot's open batch now, whatever its retry count: for
-- an event this consumer can never process (say, a payload it cannot decode), where retrying
-- would only bring it back. The batch stays open; ack it after. Repeating it is a no-op.
CREATE OR REPLACE FUNCTION pgque.dead_letter_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_msg_id bigint, i_reason text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % has no open batch', i_slot, i_consumer, i_queue USING ERRCODE = 'PQ003';
    END IF;
    IF i_reason IS NULL OR i_reason = '' THEN
        RAISE EXCEPTION 'a dead letter needs a reason' USING ERRCODE = '22023';
    END IF;
    PERFORM pgque.dead_letter_event(s, s.sub_batch, i_msg_id, i_reason, i_slot, i_n);
    RETURN 1;
END
$$;

-- The view pgque.partition_slot_status is in 56_resize.sql: it shows both slot sets of a resize.
